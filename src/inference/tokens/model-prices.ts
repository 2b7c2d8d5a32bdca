import { isRecord } from '../../common/is-record.js';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import type { TokenPrice } from '../../locks/rate-limit/core/usage-keys.js';

const MODEL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
/** Most models with a price (the table is read on every request: a bound on a config file's size). */
const MAX_PRICES = 256;
/** Highest price accepted, USD per 1M tokens (well above any model's; a typo such as 1e9 stops the boot). */
const MAX_USD = 10_000;

/**
 * Reads and validates `config.sections.inference.prices` (docs/inference.md#prices): per model name or alias the
 * client sends, USD per 1 000 000 prompt and completion tokens. Throws a ConfigError listing every problem.
 */
export function modelPrices(config: RampartConfig): Map<string, TokenPrice> {
  const out = new Map<string, TokenPrice>();
  const section = config.sections.inference;
  const raw = isRecord(section) ? section.prices : undefined;
  if (raw === undefined) return out;
  const at = 'CONFIG_FILE: inference.prices';
  if (!isRecord(raw)) throw new ConfigError([`${at} must be a map of model to price`]);
  const p: string[] = [];
  if (Object.keys(raw).length > MAX_PRICES) p.push(`${at}: at most ${MAX_PRICES} models`);
  for (const [model, v] of Object.entries(raw)) {
    const where = `${at}.${model}`;
    if (!MODEL.test(model)) p.push(`${where}: a model must match ${MODEL.source}`);
    const ok = (n: unknown): n is number =>
      typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= MAX_USD;
    if (!isRecord(v) || Object.keys(v).some((k) => k !== 'prompt' && k !== 'completion')) {
      p.push(`${where} must be { prompt, completion } (USD per 1M tokens)`);
      continue;
    }
    if (!ok(v.prompt))
      p.push(`${where}.prompt must be a number of USD per 1M tokens, 0-${MAX_USD}`);
    if (!ok(v.completion))
      p.push(`${where}.completion must be a number of USD per 1M tokens, 0-${MAX_USD}`);
    if (ok(v.prompt) && ok(v.completion))
      out.set(model, { prompt: v.prompt, completion: v.completion });
  }
  if (p.length > 0) throw new ConfigError(p);
  return out;
}

let prices = new Map<string, TokenPrice>();

/** Set once at boot from the configuration (InferenceModule). */
export function setModelPrices(table: Map<string, TokenPrice>): void {
  prices = table;
}

/** The price of the model (or alias) a request names; undefined: no price, spend 0. */
export function priceOf(model: string): TokenPrice | undefined {
  return prices.get(model);
}
