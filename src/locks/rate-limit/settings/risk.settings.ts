import { isRecord } from '../../../common/is-record.js';
import { parseDuration } from '../core/rate-parse.js';
import { DIMENSIONS, type Dimension } from '../core/dimensions.js';
import {
  RISK_SIGNALS,
  type RiskBand,
  type RiskSettings,
  type RiskSignal,
} from '../core/risk.types.js';
import { defaultRiskSettings } from './risk.defaults.js';

export { defaultRiskSettings } from './risk.defaults.js';

const KEYS = new Set([
  'enabled',
  'dimensions',
  'pointDecay',
  'maxScore',
  'weights',
  'newSubject',
  'reputation',
  'tierBonus',
  'bands',
  'ttl',
  'addressWindow',
  'payloadWindow',
  'chatSpread',
  'flush',
]);

const num = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;

/** Reads CONFIG_FILE `rateLimit.risk`; every problem is listed with its path. */
export function validateRisk(raw: unknown, at: string): { risk: RiskSettings; problems: string[] } {
  const risk = defaultRiskSettings();
  const p: string[] = [];
  if (raw === undefined) return { risk, problems: p };
  if (!isRecord(raw)) return { risk, problems: [`${at}: must be an object`] };
  for (const k of Object.keys(raw))
    if (!KEYS.has(k)) p.push(`${at}.${k}: unknown option (known: ${[...KEYS].join(', ')})`);
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== 'boolean') p.push(`${at}.enabled: must be true or false`);
    else risk.enabled = raw.enabled;
  }
  if (raw.dimensions !== undefined) {
    const d = raw.dimensions;
    if (!Array.isArray(d) || d.some((x) => !DIMENSIONS.includes(x as Dimension) || x === 'global'))
      p.push(`${at}.dimensions: must be a list of dimensions other than global`);
    else risk.dimensions = d as Dimension[];
  }
  const duration = (k: string, set: (ms: number) => void): void => {
    if (raw[k] === undefined) return;
    const ms = parseDuration(raw[k]);
    if (ms === undefined) p.push(`${at}.${k}: must be a duration such as "6s", "10m", "30d"`);
    else set(ms);
  };
  duration('pointDecay', (ms) => (risk.pointDecayMs = ms));
  duration('newSubject', (ms) => (risk.newSubjectMs = ms));
  duration('ttl', (ms) => (risk.ttlMs = ms));
  duration('payloadWindow', (ms) => (risk.payloadWindowMs = ms));
  duration('addressWindow', (ms) => (risk.addressWindowMs = ms));
  if (raw.flush !== undefined) {
    const ms = parseDuration(raw.flush);
    if (ms === undefined || ms < 10 || ms > 60_000)
      p.push(`${at}.flush: must be a duration from "10ms" to "60s"`);
    else risk.flushMs = ms;
  }
  if (raw.maxScore !== undefined) {
    if (!num(raw.maxScore, 1, 1e6)) p.push(`${at}.maxScore: must be a number from 1 to 1000000`);
    else risk.maxScore = raw.maxScore;
  }
  if (raw.weights !== undefined) {
    if (!isRecord(raw.weights)) p.push(`${at}.weights: must be an object of signal: points`);
    else
      for (const [k, v] of Object.entries(raw.weights)) {
        if (!RISK_SIGNALS.includes(k as RiskSignal))
          p.push(`${at}.weights.${k}: unknown signal (known: ${RISK_SIGNALS.join(', ')})`);
        else if (!num(v, 0, 1e6)) p.push(`${at}.weights.${k}: must be a number ≥ 0`);
        else risk.weights[k as RiskSignal] = v;
      }
  }
  const r = raw.reputation;
  if (r !== undefined) {
    if (!isRecord(r) || !num(r.perDay, 0, 1e6) || !num(r.max, 0, 1e6))
      p.push(`${at}.reputation: must be {perDay: number ≥ 0, max: number ≥ 0}`);
    else risk.reputation = { perDay: r.perDay, max: r.max };
  }
  if (raw.tierBonus !== undefined) {
    const t = raw.tierBonus;
    if (!isRecord(t) || Object.values(t).some((v) => !num(v, -1e6, 1e6)))
      p.push(`${at}.tierBonus: must be an object of tier: points`);
    else risk.tierBonus = t as Record<string, number>;
  }
  if (raw.bands !== undefined) {
    const b = bandsOf(raw.bands);
    if (!b)
      p.push(
        `${at}.bands: must be a list of {below: score, multiplier: 0.01–100} with ascending below; the last has no below`,
      );
    else risk.bands = b;
  }
  const c = raw.chatSpread;
  if (c !== undefined) {
    const w = isRecord(c) ? parseDuration(c.window) : undefined;
    if (!isRecord(c) || !Number.isInteger(c.chats) || (c.chats as number) < 1 || w === undefined)
      p.push(`${at}.chatSpread: must be {chats: integer ≥ 1, window: duration}`);
    else risk.chatSpread = { chats: c.chats as number, windowMs: w };
  }
  return { risk, problems: p };
}

function bandsOf(raw: unknown): RiskBand[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) return undefined;
  const out: RiskBand[] = [];
  for (let i = 0; i < raw.length; i++) {
    const b: unknown = raw[i];
    const last = i === raw.length - 1;
    if (!isRecord(b) || !num(b.multiplier, 0.01, 100)) return undefined;
    if (last ? b.below !== undefined : !num(b.below, -1e6, 1e6)) return undefined;
    const below = last ? Infinity : (b.below as number);
    if (out.length > 0 && below <= out[out.length - 1]!.below) return undefined;
    out.push({ below, multiplier: b.multiplier });
  }
  return out;
}
