import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UsageWrite } from '../core/usage-keys.js';
import { MAX_BUFFERED_USAGE, USAGE_FLUSH_MS, UsageBuffer } from './usage-buffer.js';

const w = (key: string, prompt: number, completion: number, model = 'm'): UsageWrite => ({
  key,
  group: 'g',
  model,
  prompt,
  completion,
  spend: prompt + completion,
  ttlMs: 1_000,
});

describe(UsageBuffer.name, () => {
  let calls: { slot: string; writes: UsageWrite[] }[];
  let buffer: UsageBuffer;
  beforeEach(() => {
    vi.useFakeTimers();
    calls = [];
    buffer = new UsageBuffer((slot, writes) => {
      calls.push({ slot, writes });
      return Promise.resolve();
    });
  });
  afterEach(() => vi.useRealTimers());

  it('should send the usage of many answers in one call per slot, summed per bucket and model', async () => {
    const done = [
      buffer.add('', [w('day', 5, 8), w('hour', 5, 8)]),
      buffer.add('', [w('day', 3, 1), w('hour', 3, 1), w('day', 2, 2, 'other')]),
      buffer.add('x', [w('day', 1, 1)]),
    ];
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(USAGE_FLUSH_MS);
    await Promise.all(done);
    expect(calls).toHaveLength(2);
    const one = calls.find((c) => c.slot === '')!.writes;
    expect(one.map((u) => [u.key, u.model, u.prompt, u.completion, u.spend])).toEqual([
      ['day', 'm', 8, 9, 17],
      ['hour', 'm', 8, 9, 17],
      ['day', 'other', 2, 2, 4],
    ]);
  });

  it('should hand the writes of a slot to a settlement call of that slot, and settle their callers with it', async () => {
    const done = buffer.add('', [w('day', 5, 8)]);
    const ride = buffer.take('')!;
    expect(ride.writes).toHaveLength(1);
    expect(buffer.take('')).toBeUndefined();
    ride.carried(Promise.reject(new Error('redis down')));
    await expect(done).rejects.toThrow('redis down');
    await vi.advanceTimersByTimeAsync(USAGE_FLUSH_MS);
    expect(calls).toHaveLength(0); // carried: never sent twice
  });

  it('should send at once past its bound, and after close', async () => {
    for (let i = 0; i < MAX_BUFFERED_USAGE; i++) void buffer.add('', [w(`k${i}`, 1, 0)]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.writes).toHaveLength(MAX_BUFFERED_USAGE);
    void buffer.add('', [w('late', 1, 0)]);
    buffer.close();
    expect(calls).toHaveLength(2);
    await buffer.add('', [w('after', 1, 0)]);
    expect(calls).toHaveLength(3);
  });
});
