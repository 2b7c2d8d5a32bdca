import { Injectable } from '@nestjs/common';
import { RedisUnavailableError } from '../../redis/redis.errors.js';
import { bucketStart, PERIOD_MS, usageKey } from './core/usage-keys.js';
import type { UsageAdminPort, UsageQuery, UsageRow } from './rate-limit.admin.js';
import { modelPart } from './rules/request-buckets.js';
import { StoreLanes } from './store/lanes/store-lanes.js';

/** Usage buckets read in one store call at most (one script call: bounded work in Redis). */
const KEYS_PER_CALL = 256;

/**
 * The usage port (docs/quotas.md#usage-and-spend): reads the buckets the settle call wrote, from the service's
 * store (Redis once its key secret is known; 503 `admin_store_unavailable` until then). Apps and user are given in clear and hashed as the limiter's keys hash them; answers name the user
 * only by that hash.
 */
@Injectable()
export class UsageAdmin implements UsageAdminPort {
  constructor(private readonly lanes: StoreLanes) {}

  async usage(
    q: UsageQuery,
  ): Promise<{ user: string | null; rows: UsageRow[]; truncated: boolean }> {
    // Before the key secret is known (just after boot) or while Redis is down, the memory lane holds other keys
    // (another secret) and none of the shared usage: the read waits for the shared store, or is a 503.
    const lane = await this.lanes.shared();
    if (!lane)
      throw new RedisUnavailableError(
        'usage read',
        'the shared store or its key secret is not ready',
      );
    const step = PERIOD_MS[q.period];
    const user =
      q.user === undefined || q.apps.length !== 1
        ? undefined
        : lane.hasher.part('user', { value: q.user, personal: true, scope: q.apps[0]! });
    const want = q.model === undefined ? undefined : modelPart(q.model);
    const cells: { start: number; app: string; key: string }[] = [];
    for (let t = bucketStart(q.period, q.fromMs); t < q.toMs; t += step)
      for (const app of q.apps) {
        const part = lane.hasher.part('app', { value: app, personal: false });
        cells.push({ start: t, app, key: usageKey(this.lanes.tag, q.period, t, part, user) });
      }
    const hashes: Record<string, string>[] = [];
    for (let i = 0; i < cells.length; i += KEYS_PER_CALL)
      hashes.push(
        ...(await lane.store.readUsage(cells.slice(i, i + KEYS_PER_CALL).map((c) => c.key))),
      );
    const rows: UsageRow[] = [];
    let truncated = false;
    cells.forEach((c, i) => {
      for (const [model, n] of byModel(hashes[i] ?? {})) {
        if (want !== undefined && model !== want) continue;
        if (rows.length >= q.maxRows) {
          truncated = true;
          return;
        }
        rows.push({ start: new Date(c.start).toISOString(), app: c.app, model, ...n });
      }
    });
    return { user: user ?? null, rows, truncated };
  }
}

type Counts = Pick<UsageRow, 'promptTokens' | 'completionTokens' | 'spendMicros'>;

/** A usage hash (`<model>:p|c|s`) as counts per model, models in name order. */
function byModel(h: Record<string, string>): [string, Counts][] {
  const out = new Map<string, Counts>();
  for (const [f, v] of Object.entries(h)) {
    const cut = f.lastIndexOf(':');
    const model = f.slice(0, cut);
    let c = out.get(model);
    if (!c) out.set(model, (c = { promptTokens: 0, completionTokens: 0, spendMicros: 0 }));
    const n = Number(v) || 0;
    const kind = f.slice(cut + 1);
    if (kind === 'p') c.promptTokens += n;
    else if (kind === 'c') c.completionTokens += n;
    else if (kind === 's') c.spendMicros += n;
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
