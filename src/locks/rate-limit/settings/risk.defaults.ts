import type { RiskSettings } from '../core/risk.types.js';

/** The shipped risk settings (docs/quotas.md#signals): every weight and band is a CONFIG_FILE option. */
export function defaultRiskSettings(): RiskSettings {
  return {
    enabled: true,
    dimensions: ['app', 'user', 'ip'],
    pointDecayMs: 6_000,
    maxScore: 100,
    weights: {
      new_subject: 10,
      bad_signature: 5,
      validation_failed: 2,
      not_found: 1,
      bloom_absent: 2,
      repeated_payload: 3,
      chat_spread: 10,
    },
    newSubjectMs: 10 * 60_000,
    reputation: { perDay: 2, max: 20 },
    tierBonus: { pro: 10 },
    bands: [
      { below: -10, multiplier: 1.5 },
      { below: 20, multiplier: 1 },
      { below: 50, multiplier: 0.5 },
      { below: Infinity, multiplier: 0.2 },
    ],
    ttlMs: 30 * 86_400_000,
    addressWindowMs: 60_000,
    payloadWindowMs: 60_000,
    chatSpread: { chats: 5, windowMs: 60_000 },
    flushMs: 5_000,
  };
}
