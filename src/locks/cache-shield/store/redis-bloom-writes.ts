import type { RedisService } from '../../../redis/redis.service.js';
import { HEADER_BYTES } from '../bloom/filter/bloom-filter.js';
import type { BloomKeys } from './bloom-keys.js';
import type {
  ActivateResult,
  AddRequest,
  AddResult,
  BloomPointer,
  StoredBuild,
} from './bloom-store.js';
import { ADD_LOG_MAX } from './bloom-store.js';

/** A script's refusal: the pointer as it is (active, previous, seq). */
type Refused = [0, string, string, number];

/**
 * The Redis store's atomic changes, one Lua script each: activate a build,
 * roll back to the previous one, add keys. Each checks the pointer it
 * expects, changes the bits and the pointer, and announces itself.
 */
export class RedisBloomWrites {
  constructor(
    private readonly redis: RedisService,
    private readonly keys: BloomKeys,
  ) {}

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
}

/** A pointer from its stored fields ('' = none). */
export function toPointer(active: string, previous: string, seq: number): BloomPointer {
  const p: BloomPointer = { seq: Number(seq) };
  if (active !== '') p.active = Number(active);
  if (previous !== '') p.previous = Number(previous);
  return p;
}
