import type { Clock } from '../../../common/clock.js';
import { HEADER_BYTES } from '../bloom/filter/bloom-filter.js';
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

interface FilterState {
  pointer: BloomPointer;
  builds: Map<number, StoredBuild>;
  log: AddLogEntry[];
  versions: number;
  lock?: { owner: string; until: number };
}

/** The Bloom store of a single instance (no Redis): same semantics, in process. */
export class MemoryBloomStore implements BloomStore {
  readonly shared = false;
  private readonly filters = new Map<string, FilterState>();
  private readonly listeners = new Set<(e: BloomEvent) => void>();

  constructor(private readonly clock: Clock) {}

  private state(filter: string): FilterState {
    let s = this.filters.get(filter);
    if (!s)
      this.filters.set(
        filter,
        (s = { pointer: { seq: 0 }, builds: new Map(), log: [], versions: 0 }),
      );
    return s;
  }

  async claimBuild(filter: string, owner: string, ttlMs: number): Promise<boolean> {
    const s = this.state(filter);
    if (s.lock && s.lock.until > this.clock.now() && s.lock.owner !== owner) return false;
    s.lock = { owner, until: this.clock.now() + ttlMs };
    return true;
  }

  async releaseBuild(filter: string, owner: string): Promise<void> {
    const s = this.state(filter);
    if (s.lock?.owner === owner) s.lock = undefined;
  }

  async nextVersion(filter: string): Promise<number> {
    return ++this.state(filter).versions;
  }

  async pointer(filter: string): Promise<BloomPointer> {
    return { ...this.state(filter).pointer };
  }

  async load(filter: string): Promise<LoadedFilter> {
    const s = this.state(filter);
    const copy = (v?: number): StoredBuild | undefined => {
      const b = v === undefined ? undefined : s.builds.get(v);
      return b && { info: structuredClone(b.info), bytes: Buffer.from(b.bytes) };
    };
    return {
      pointer: { ...s.pointer },
      active: copy(s.pointer.active),
      previous: copy(s.pointer.previous),
    };
  }

  async addLog(filter: string): Promise<AddLogEntry[]> {
    return this.state(filter).log.map((e) => ({ ...e, keys: [...e.keys] }));
  }

  async activate(
    build: StoredBuild,
    expectActive: number | undefined,
    expectSeq: number,
    _ttlMs?: number,
  ): Promise<ActivateResult> {
    const s = this.state(build.info.filter);
    if (s.pointer.seq !== expectSeq || s.pointer.active !== expectActive)
      return { ok: false, pointer: { ...s.pointer } };
    const displaced = s.pointer.previous;
    s.builds.set(build.info.version, {
      info: structuredClone(build.info),
      bytes: Buffer.from(build.bytes),
    });
    s.pointer = { active: build.info.version, previous: s.pointer.active, seq: s.pointer.seq };
    if (s.pointer.previous === undefined) delete s.pointer.previous;
    this.emit({
      type: 'activated',
      filter: build.info.filter,
      version: build.info.version,
      seq: s.pointer.seq,
    });
    return { ok: true, displaced };
  }

  async rollback(
    filter: string,
    expect: { active: number; previous: number },
    _ttlMs?: number,
  ): Promise<ActivateResult> {
    const s = this.state(filter);
    if (s.pointer.active !== expect.active || s.pointer.previous !== expect.previous)
      return { ok: false, pointer: { ...s.pointer } };
    s.pointer = { active: expect.previous, previous: expect.active, seq: s.pointer.seq };
    this.emit({ type: 'activated', filter, version: expect.previous, seq: s.pointer.seq });
    return { ok: true };
  }

  async add(req: AddRequest, _ttlMs?: number): Promise<AddResult> {
    const s = this.state(req.filter);
    const [active, previous] = req.targets;
    if (s.pointer.active !== active?.version || s.pointer.previous !== previous?.version)
      return { ok: false, pointer: { ...s.pointer } };
    for (const t of req.targets) {
      const bytes = s.builds.get(t.version)!.bytes;
      for (const x of t.positions)
        bytes[HEADER_BYTES + (x >>> 3)] = bytes[HEADER_BYTES + (x >>> 3)]! | (0x80 >>> (x & 7));
    }
    const seq = ++s.pointer.seq;
    s.log.push({ seq, at: req.at, keys: [...req.keys] });
    if (s.log.length > ADD_LOG_MAX) s.log.splice(0, s.log.length - ADD_LOG_MAX);
    this.emit({ type: 'added', filter: req.filter, seq, keys: [...req.keys] });
    return { ok: true, seq };
  }

  async drop(filter: string, version: number): Promise<void> {
    const s = this.state(filter);
    if (version !== s.pointer.active && version !== s.pointer.previous) s.builds.delete(version);
  }

  async subscribe(listener: (event: BloomEvent) => void): Promise<() => void> {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: BloomEvent): void {
    // Delivered after the call returns, like a pub/sub message.
    queueMicrotask(() => {
      for (const l of this.listeners) l(event);
    });
  }
}
