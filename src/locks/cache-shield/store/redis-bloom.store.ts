import { Logger } from '@nestjs/common';
import type { RedisService } from '../../../redis/redis.service.js';
import type { BloomBuildInfo } from '../bloom/filter/bloom-build.js';
import { HEADER_BYTES } from '../bloom/filter/bloom-filter.js';
import { BloomKeys } from './bloom-keys.js';
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
import { ADD_LOG_MAX } from './bloom-store.js';

type Refused = [0, string, string, number];

/**
 * The Bloom store shared by every instance: bits under versioned keys, a
 * pointer hash, an add log, all changes made by Lua scripts that announce
 * themselves on one pub/sub channel. Instances read the bits only when
 * they load a build; lookups never touch Redis.
 */
export class RedisBloomStore implements BloomStore {
  readonly shared = true;
  private readonly logger = new Logger('CacheShield');
  private readonly keys: BloomKeys;
  private readonly listeners = new Set<(e: BloomEvent) => void>();
  private subscribed?: Promise<void>;

  constructor(private readonly redis: RedisService) {
    this.keys = new BloomKeys(redis.tag);
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

  async activate(
    build: StoredBuild,
    expectActive: number | undefined,
    expectSeq: number,
    ttlMs: number,
  ): Promise<ActivateResult> {
    const { filter, version } = build.info;
    const old = expectActive ?? 0;
    const keys = [
      this.keys.pointer(filter),
      this.keys.bits(filter, version),
      this.keys.info(filter, version),
      this.keys.bits(filter, old),
      this.keys.info(filter, old),
    ];
    const args = [
      expectActive ?? '',
      expectSeq,
      version,
      build.bytes as unknown as string,
      JSON.stringify(build.info),
      ttlMs,
      this.keys.channel,
      filter,
    ];
    const out = await this.redis.script<[1, string] | Refused>('shield_bloom_activate', keys, args);
    if (out[0] === 0) return { ok: false, pointer: toPointer(out[1], out[2], out[3]) };
    return { ok: true, displaced: out[1] === '' ? undefined : Number(out[1]) };
  }

  async rollback(
    filter: string,
    expect: { active: number; previous: number },
    ttlMs: number,
  ): Promise<ActivateResult> {
    const k = this.keys;
    const keys = [
      k.pointer(filter),
      k.bits(filter, expect.active),
      k.info(filter, expect.active),
      k.bits(filter, expect.previous),
      k.info(filter, expect.previous),
    ];
    const out = await this.redis.script<[1, string] | Refused>('shield_bloom_rollback', keys, [
      expect.active,
      expect.previous,
      ttlMs,
      k.channel,
      filter,
    ]);
    return out[0] === 0 ? { ok: false, pointer: toPointer(out[1], out[2], out[3]) } : { ok: true };
  }

  async add(req: AddRequest, ttlMs: number): Promise<AddResult> {
    const [active, previous] = req.targets;
    const keys = [this.keys.pointer(req.filter), this.keys.log(req.filter)];
    if (active) keys.push(this.keys.bits(req.filter, active.version));
    if (previous) keys.push(this.keys.bits(req.filter, previous.version));
    const args: (string | number)[] = [
      active?.version ?? '',
      previous?.version ?? '',
      HEADER_BYTES * 8,
      active?.positions.length ?? 0,
      ttlMs,
      ADD_LOG_MAX,
      this.keys.channel,
      req.filter,
      req.at,
      JSON.stringify(req.keys),
    ];
    for (const t of req.targets) for (const x of t.positions) args.push(x);
    const out = await this.redis.script<[1, number] | Refused>('shield_bloom_add', keys, args);
    return out[0] === 0
      ? { ok: false, pointer: toPointer(out[1], out[2], out[3]) }
      : { ok: true, seq: out[1] };
  }

  async drop(filter: string, version: number): Promise<void> {
    const p = await this.pointer(filter);
    if (version === p.active || version === p.previous) return;
    await this.redis.run('shield.drop', (c) =>
      c.del(this.keys.bits(filter, version), this.keys.info(filter, version)),
    );
  }

  async subscribe(listener: (event: BloomEvent) => void): Promise<() => void> {
    this.listeners.add(listener);
    this.subscribed ??= this.listen();
    await this.subscribed;
    return () => this.listeners.delete(listener);
  }

  private async listen(): Promise<void> {
    const sub = this.redis.subscriber();
    if (!sub) return;
    let first = true;
    sub.on('ready', () => {
      // Messages published while the subscriber was away are lost: every instance re-reads the pointers.
      if (!first) this.emit({ type: 'resync' });
      first = false;
    });
    sub.on('message', (channel: string, message: string) => {
      if (channel !== this.keys.channel) return;
      try {
        this.emit(JSON.parse(message) as BloomEvent);
      } catch (err) {
        this.logger.warn(`ignoring a malformed bloom announcement: ${(err as Error).message}`);
      }
    });
    // While Redis is unreachable the subscription waits in the subscriber's queue; boot does not wait for it.
    const done = sub.subscribe(this.keys.channel).then(
      () => undefined,
      (err: Error) => this.logger.warn(`bloom announcements: subscribe failed (${err.message})`),
    );
    await Promise.race([done, new Promise((r) => setTimeout(r, 2_000).unref())]);
  }

  private emit(event: BloomEvent): void {
    for (const l of this.listeners) l(event);
  }
}

function toPointer(active: string, previous: string, seq: number): BloomPointer {
  const p: BloomPointer = { seq: Number(seq) };
  if (active !== '') p.active = Number(active);
  if (previous !== '') p.previous = Number(previous);
  return p;
}
