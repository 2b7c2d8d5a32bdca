import type { INestApplication } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import { effectiveMode, LockChain } from './chain/lock-chain.service.js';
import { LOCK_NAMES } from './chain/lock-order.js';
import { RouteRegistry } from './chain/route-registry.service.js';
import type { RampartConfig } from './config/config.types.js';
import type { PolicySet } from './config/policy.types.js';
import type { LogFormat } from './logging/log-format.js';
import { RedisService } from './redis/redis.service.js';

/** What the start-up summary is made of (collected from the running app). */
export interface SummaryInput {
  /** Base URL people open, e.g. http://localhost:3000. */
  url: string;
  /** Address and port actually bound. */
  bound: string;
  adapter: string;
  /** Redis standalone / Cluster / none, and the key hash tag. */
  redis: { kind: 'standalone' | 'cluster' | 'sentinel' | 'none'; tag: string; ready: boolean };
  installed: readonly string[];
  policies: PolicySet;
  routes: readonly { method: string; template: string; policy?: string }[];
  docsEnabled: boolean;
  now: number;
}

const list = (items: readonly string[], max = 3): string =>
  items.length <= max
    ? items.join(', ')
    : `${items.slice(0, max).join(', ')} +${items.length - max} more`;

/**
 * The short human summary that ends the start-up log: where to reach the
 * service, what it runs on, the chain of each policy and what no lock guards.
 */
export function startupSummary(s: SummaryInput): string[] {
  const stores =
    s.redis.kind === 'none'
      ? 'stores: memory (one instance: state is not shared; set REDIS_URL for more)'
      : `stores: Redis ${s.redis.kind}${s.redis.ready ? '' : ' (not reachable yet)'}, keys tagged ${s.redis.tag}`;
  const lines = [`rampart ready at ${s.url} (${s.adapter}, listening on ${s.bound})`, stores];
  for (const [name, policy] of Object.entries(s.policies.policies)) {
    const routes = s.routes
      .filter((r) => r.policy === name)
      .map((r) => `${r.method} ${r.template}`);
    const chain = LOCK_NAMES.filter((l) => s.installed.includes(l)).flatMap((l) => {
      const slice = policy.locks[l];
      if (!slice) return [];
      const mode = effectiveMode(slice, s.now);
      if (mode === 'off') return [];
      return [mode === 'enforce' ? l : `${l} (${mode})`];
    });
    lines.push(
      `policy ${name}: ${chain.length ? chain.join(' → ') : 'no lock on'} — ${routes.length ? list(routes) : 'no route'}`,
    );
  }
  const open = s.routes
    .filter((r) => r.policy === undefined)
    .map((r) => `${r.method} ${r.template}`);
  lines.push(`unprotected routes: ${open.length ? list(open, 8) : 'none'}`);
  lines.push(
    `console ${s.url}/admin/ui · ${s.docsEnabled ? `docs ${s.url}/docs` : 'docs off (DOCS_ENABLED)'} · metrics ${s.url}/metrics`,
  );
  return lines;
}

/**
 * Writes the summary: in JSON, one line each (marked `summary: true`, so log readers show them
 * as they are); for people, one block (its first line after the usual prefix, the rest indented).
 */
export function logStartupSummary(log: Pino, lines: readonly string[], format: LogFormat): void {
  if (format === 'pretty') log.info({ summary: true }, lines.join('\n    '));
  else for (const line of lines) log.info({ summary: true }, line);
}

/** Collects the summary's input from a listening app. */
export function summaryInput(app: INestApplication, config: RampartConfig): SummaryInput {
  const addr = app.getHttpServer().address() as { address: string; port: number } | null;
  const port = addr?.port ?? config.port;
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host;
  const chain = app.get(LockChain);
  const kind = app.get(RedisService).mode;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    bound: `${config.host}:${port}`,
    adapter: config.httpAdapter,
    redis: { kind, tag: `{${config.env}:${config.service}}`, ready: app.get(RedisService).ready },
    installed: chain.installed(),
    policies: chain.current(),
    routes: app.get(RouteRegistry).routes(),
    docsEnabled: config.docsEnabled,
    now: Date.now(),
  };
}
