import { describe, expect, it } from 'vitest';
import { ManualClock } from '../common/clock.js';
import { GroupSizes, type LookupOutcome } from './group-sizes.js';

/** A fetch the test answers: each call waits until `answer` or `fail`. */
function fakeFetch() {
  const pending: { bot: string; chat: string; ok: (n: number) => void; no: (e: Error) => void }[] =
    [];
  const fetch = (bot: string, chat: string) =>
    new Promise<number>((ok, no) => pending.push({ bot, chat, ok, no }));
  return { fetch, pending };
}
const flush = () => new Promise((r) => setImmediate(r));
const OPTS = { ttlMs: 60_000, retryMs: 5_000, maxEntries: 3, maxInFlight: 2 };

function setup() {
  const clock = new ManualClock();
  const f = fakeFetch();
  const seen: LookupOutcome[] = [];
  const sizes = new GroupSizes(f.fetch, clock, (_, o) => seen.push(o), OPTS);
  return { clock, f, seen, sizes };
}

describe(GroupSizes.name, () => {
  it('should answer undefined at once, fetch once per chat (single flight), then answer the count', async () => {
    const { f, seen, sizes } = setup();
    expect(sizes.members('a', '-1')).toBeUndefined();
    expect(sizes.members('a', '-1')).toBeUndefined();
    await flush();
    expect(f.pending.map((p) => `${p.bot}:${p.chat}`)).toEqual(['a:-1']);
    f.pending[0]!.ok(250);
    await flush();
    expect(sizes.members('a', '-1')).toBe(250);
    expect(seen).toEqual(['ok']);
    // Per bot × chat: another bot's same chat is its own lookup.
    expect(sizes.members('b', '-1')).toBeUndefined();
    await flush();
    expect(f.pending).toHaveLength(2);
  });

  it('should refetch after the TTL, keeping the old count meanwhile', async () => {
    const { clock, f, sizes } = setup();
    sizes.members('a', '-1');
    await flush();
    f.pending[0]!.ok(10);
    await flush();
    clock.advance(OPTS.ttlMs - 1);
    expect(sizes.members('a', '-1')).toBe(10);
    await flush();
    expect(f.pending).toHaveLength(1);
    clock.advance(1);
    expect(sizes.members('a', '-1')).toBe(10);
    await flush();
    expect(f.pending).toHaveLength(2);
    f.pending[1]!.ok(500);
    await flush();
    expect(sizes.members('a', '-1')).toBe(500);
  });

  it('should ignore a failure (counted) and retry only after retryMs', async () => {
    const { clock, f, seen, sizes } = setup();
    sizes.members('a', '-1');
    await flush();
    f.pending[0]!.no(new Error('Bot API down'));
    await flush();
    expect(seen).toEqual(['failed']);
    expect(sizes.members('a', '-1')).toBeUndefined();
    await flush();
    expect(f.pending).toHaveLength(1);
    clock.advance(OPTS.retryMs);
    sizes.members('a', '-1');
    await flush();
    expect(f.pending).toHaveLength(2);
  });

  it('should run at most maxInFlight fetches and remember at most maxEntries chats', async () => {
    const { f, seen, sizes } = setup();
    for (const c of ['-1', '-2', '-3']) sizes.members('a', c);
    await flush();
    expect(f.pending).toHaveLength(2);
    expect(seen).toEqual(['skipped']);
    for (const p of f.pending) p.ok(1);
    await flush();
    for (const c of ['-3', '-4']) sizes.members('a', c);
    await flush();
    for (const p of f.pending.slice(2)) p.ok(2);
    await flush();
    expect(sizes.size).toBe(3);
    // The oldest fetched (-1) was dropped: unknown again.
    expect(sizes.members('a', '-1')).toBeUndefined();
    expect(sizes.members('a', '-4')).toBe(2);
  });
});
