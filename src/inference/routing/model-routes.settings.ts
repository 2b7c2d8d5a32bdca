import { isRecord } from '../../common/is-record.js';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { readSecretEnv } from '../../config/secret-env.js';
import { type ModelRoutes, type UpstreamRoute, upstreamBackend } from './model-routes.types.js';

const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const KEYS = ['name', 'url', 'model', 'weight', 'priority', 'apiKeyEnv', 'timeoutMs', 'capacity'];
/** Default milliseconds of one attempt: well under the inference breaker's 30 s, so a fallback still fits. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

type Env = Record<string, string | undefined>;

function int(v: unknown, min: number, max: number): v is number {
  return Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
}

function parseUpstream(raw: unknown, at: string, p: string[], env: Env): UpstreamRoute | undefined {
  if (!isRecord(raw)) {
    p.push(`${at} must be an object`);
    return undefined;
  }
  for (const k of Object.keys(raw)) if (!KEYS.includes(k)) p.push(`${at}.${k}: unknown setting`);
  const { name, url, model, weight = 1, priority = 0, apiKeyEnv, capacity } = raw;
  const { timeoutMs = DEFAULT_ATTEMPT_TIMEOUT_MS } = raw;
  const before = p.length;
  if (typeof name !== 'string' || !NAME.test(name)) p.push(`${at}.name must match ${NAME.source}`);
  let base: URL | undefined;
  try {
    base = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    base = undefined;
  }
  if (!base || !['http:', 'https:'].includes(base.protocol) || base.username || base.password)
    p.push(`${at}.url must be an http(s) URL without credentials (the key goes in apiKeyEnv)`);
  if (typeof model !== 'string' || model.length === 0 || model.length > 256)
    p.push(`${at}.model must be the upstream's model name (1-256 characters)`);
  if (!int(weight, 1, 1_000)) p.push(`${at}.weight must be an integer from 1 to 1000`);
  if (!int(priority, 0, 100)) p.push(`${at}.priority must be an integer from 0 to 100`);
  if (!int(timeoutMs, 100, 600_000)) p.push(`${at}.timeoutMs must be 100-600000 milliseconds`);
  if (capacity !== undefined && !int(capacity, 1, 100_000))
    p.push(`${at}.capacity must be an integer from 1 to 100000`);
  let apiKey: string | undefined;
  if (apiKeyEnv !== undefined) {
    if (typeof apiKeyEnv !== 'string' || !ENV_NAME.test(apiKeyEnv))
      p.push(`${at}.apiKeyEnv must name an environment variable ([A-Z_][A-Z0-9_]*)`);
    else if (!env[apiKeyEnv]) p.push(`${at}.apiKeyEnv: the variable ${apiKeyEnv} is not set`);
    else apiKey = env[apiKeyEnv];
  }
  if (p.length > before) return undefined;
  return {
    name: name as string,
    url: url as string,
    model: model as string,
    weight: weight as number,
    priority: priority as number,
    apiKey,
    timeoutMs: timeoutMs as number,
    capacity: capacity as number | undefined,
    backend: upstreamBackend(name as string),
  };
}

/**
 * Reads and validates `config.sections.inference.models` (docs/inference.md#upstreams-per-model):
 * model aliases, each with one or more upstreams. Throws a ConfigError listing every problem.
 * API keys are read from the variables the upstreams name (`apiKeyEnv`), never from the file.
 */
export function modelRoutes(config: RampartConfig, env: Env = readSecretEnv()): ModelRoutes {
  const section = config.sections.inference;
  const routes = new Map<string, UpstreamRoute[]>();
  if (section === undefined) return routes;
  const p: string[] = [];
  const at = 'CONFIG_FILE: inference';
  if (!isRecord(section)) throw new ConfigError([`${at} must be an object`]);
  for (const k of Object.keys(section))
    if (k !== 'models' && k !== 'prices') p.push(`${at}.${k}: unknown setting`);
  const models = section.models ?? {};
  if (!isRecord(models))
    throw new ConfigError([...p, `${at}.models must be a map of alias to model`]);
  const names = new Set<string>();
  for (const [alias, model] of Object.entries(models)) {
    const where = `${at}.models.${alias}`;
    if (!ALIAS.test(alias)) p.push(`${where}: an alias must match ${ALIAS.source}`);
    const ups = isRecord(model) ? model.upstreams : undefined;
    if (!isRecord(model) || Object.keys(model).some((k) => k !== 'upstreams'))
      p.push(`${where} must be an object with "upstreams" only`);
    if (!Array.isArray(ups) || ups.length === 0 || ups.length > 16) {
      p.push(`${where}.upstreams must be a list of 1 to 16 upstreams`);
      continue;
    }
    const list: UpstreamRoute[] = [];
    ups.forEach((u, i) => {
      const route = parseUpstream(u, `${where}.upstreams[${i}]`, p, env);
      if (!route) return;
      if (names.has(route.name))
        p.push(
          `${where}.upstreams[${i}].name: "${route.name}" is used twice (one name, one breaker)`,
        );
      names.add(route.name);
      list.push(route);
    });
    routes.set(alias, list);
  }
  if (p.length > 0) throw new ConfigError(p);
  return routes;
}
