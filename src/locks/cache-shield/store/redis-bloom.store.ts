import type { RedisService } from '../../../redis/redis.service.js';
import type { BloomBuildInfo } from '../bloom/filter/bloom-build.js';
import { BloomKeys } from './bloom-keys.js';
import { RedisBloomEvents } from './redis-bloom-events.js';
import { RedisBloomWrites, toPointer } from './redis-bloom-writes.js';
import type {
  ActivateResult,
  AddLogEntry,
  AddRequest,
  AddResult,
  BloomEvent,
  BloomPointer,
  BloomStore,
  LoadedFilter,
  StoredBuild,
} from './bloom-store.js';

/**
 * The Bloom store shared by every instance: bits under versioned keys, a
 * pointer hash, an add log, all changes made by Lua scripts that announce
 * themselves on one pub/sub channel (redis-bloom-writes.ts,
 * redis-bloom-events.ts). Instances read the bits only when
 * they load a build; lookups never touch Redis.
 */
export class RedisBloomStore implements BloomStore {
  readonly shared = true;
  private readonly keys: BloomKeys;
  private readonly events: RedisBloomEvents;
  private readonly writes: RedisBloomWrites;

  constructor(private readonly redis: RedisService) {
    this.keys = new BloomKeys(redis.tag);
    this.events = new RedisBloomEvents(redis, this.keys.channel);
    this.writes = new RedisBloomWrites(redis, this.keys);
  }

  async claimBuild(filter: string, owner: string, ttlMs: number): Promise<boolean> {
    return (
      (await this.redis.run('shield.claim', (c) =>
        c.set(this.keys.lock(filter), owner, 'PX', ttlMs, 'NX'),
      )) === 'OK'
    );
  }

  async releaseBuild(filter: string, owner: string): Promise<void> {
    await this.redis.script('shield_unlock', [this.keys.lock(filter)], [owner]);
  }

  async nextVersion(filter: string): Promise<number> {
    return Number(
      await this.redis.script(
        'shield_bloom_version',
        [this.keys.counter(filter), this.keys.pointer(filter)],
        [86_400_000 * 3_650],
      ),
    );
  }

  async pointer(filter: string): Promise<BloomPointer> {
    const h = await this.redis.run('shield.pointer', (c) => c.hgetall(this.keys.pointer(filter)));
    return toPointer(h.active ?? '', h.previous ?? '', Number(h.seq ?? 0));
  }

  async load(filter: string): Promise<LoadedFilter> {
    const pointer = await this.pointer(filter);
    const read = async (v?: number): Promise<StoredBuild | undefined> => {
      if (v === undefined) return undefined;
      const [bytes, info] = await this.redis.run('shield.load', (c) =>
        Promise.all([c.getBuffer(this.keys.bits(filter, v)), c.get(this.keys.info(filter, v))]),
      );
      return bytes && info ? { bytes, info: JSON.parse(info) as BloomBuildInfo } : undefined;
    };
    const [active, previous] = await Promise.all([read(pointer.active), read(pointer.previous)]);
    return { pointer, active, previous };
  }

  async addLog(filter: string): Promise<AddLogEntry[]> {
    const raw = await this.redis.run('shield.log', (c) => c.lrange(this.keys.log(filter), 0, -1));
    return raw.map((r) => JSON.parse(r) as AddLogEntry);
  }

  activate(
    build: StoredBuild,
    expectActive: number | undefined,
    expectSeq: number,
    ttlMs: number,
  ): Promise<ActivateResult> {
    return this.writes.activate(build, expectActive, expectSeq, ttlMs);
  }

  rollback(
    filter: string,
    expect: { active: number; previous: number },
    ttlMs: number,
  ): Promise<ActivateResult> {
    return this.writes.rollback(filter, expect, ttlMs);
  }

  add(req: AddRequest, ttlMs: number): Promise<AddResult> {
    return this.writes.add(req, ttlMs);
  }

  async drop(filter: string, version: number): Promise<void> {
    const p = await this.pointer(filter);
    if (version === p.active || version === p.previous) return;
    await this.redis.run('shield.drop', (c) =>
      c.del(this.keys.bits(filter, version), this.keys.info(filter, version)),
    );
  }

  subscribe(listener: (event: BloomEvent) => void): Promise<() => void> {
    return this.events.subscribe(listener);
  }
}
