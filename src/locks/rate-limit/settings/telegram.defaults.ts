import type { RateLimitSlice } from '../core/rate-limit-slice.types.js';

/**
 * Telegram webhooks (docs/telegram.md#limits). Verified updates: global (admins exempt), per chat
 * for groups, per user, and per user for the expensive commands, each update costing its command's
 * tokens (`cost: telegram`: /help 1, /search 2, /ask 5). A limited update is flagged (the product
 * answers 200 and tells the user once), a redelivered update_id is a duplicate (claim `update`).
 * Unverified requests (lock 1 defers its 401) meet only the per-IP rule, and get 429 past it.
 * Shipped for the `telegram` route policy (rate-limit.defaults.ts).
 */
export const TELEGRAM_SLICE: RateLimitSlice = {
  mode: 'enforce',
  failMode: 'local',
  cost: 'telegram',
  onLimit: 'flag',
  claim: 'update',
  // At load soft /search answers from caches and /ask gets a reduced quota; the bots' admins are never shed.
  degradeRank: 1,
  criticalWhen: { role: ['admin'] },
  rules: [
    {
      name: 'global',
      dimension: 'global',
      capacity: 2000,
      rate: '2000/min',
      when: { verified: ['yes'] },
      unless: { role: ['admin'] },
    },
    {
      name: 'webhook-ip',
      dimension: 'ip',
      capacity: 120,
      rate: '120/min',
      when: { verified: ['no'] },
      // An exact ceiling: failed secret tokens raise the address's score, they do not move this limit.
      risk: false,
    },
    {
      name: 'chat',
      dimension: 'chat',
      capacity: 80,
      rate: '8/s',
      when: { chatType: ['group', 'supergroup'] },
    },
    {
      name: 'user',
      dimension: 'user',
      capacity: 20,
      rate: '2/s',
      penalty: { threshold: 5, factor: 0.5, decay: '1m' },
    },
    {
      name: 'search',
      dimension: 'user',
      capacity: 12,
      rate: '12/min',
      when: { command: ['/search'] },
    },
    {
      name: 'ask',
      dimension: 'user',
      capacity: 15,
      rate: '15/min',
      when: { command: ['/ask'] },
      degradeRank: 2,
    },
  ],
};
