import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock.js';
import { MemorySendGateStore } from './gate/memory-send-gate.store.js';
import { outboundSettings, parseBuckets } from './outbound.settings.js';

describe(outboundSettings.name, () => {
  it('should read the in-memory caps of the queue and the send gate, and refuse one out of range', () => {
    const p: string[] = [];
    const defaults = outboundSettings(undefined, p);
    expect([defaults.memoryMaxJobs, defaults.memoryChatEntries]).toEqual([100_000, 100_000]);
    const out = outboundSettings({ memoryMaxJobs: 300, memoryChatEntries: 400 }, p);
    expect([out.memoryMaxJobs, out.memoryChatEntries, p]).toEqual([300, 400, []]);
    outboundSettings({ memoryMaxJobs: 5, memoryChatEntries: 1.5 }, p);
    expect(p).toEqual([
      'CONFIG_FILE: telegram.outbound.memoryMaxJobs must be an integer 100–50000000',
      'CONFIG_FILE: telegram.outbound.memoryChatEntries must be an integer 100–50000000',
    ]);
  });
});

describe('outbound method buckets', () => {
  const album = (gate: MemorySendGateStore, chatId: string, method = 'sendMediaGroup') => {
    const s = outboundSettings(undefined, []);
    return gate.charge({
      bot: 'b',
      chatId,
      method,
      weight: s.methodWeights[method] ?? 1,
      sendId: `s${chatId}`,
      inflightMs: 1_000,
      // A bot bucket with room for several albums at once: only the method's own bucket can refuse.
      buckets: {
        bot: { perSecond: 30, burst: 30 },
        method: s.buckets.methods[method],
        chat: s.buckets.private,
      },
    });
  };

  it('should pace albums by their own bucket by default, other sends of the bot going on', async () => {
    const gate = new MemorySendGateStore(new ManualClock());
    expect(await album(gate, '1')).toMatchObject({ kind: 'ok' });
    // The bot bucket has room, the album bucket none: 3 albums a second.
    expect(await album(gate, '2')).toMatchObject({ kind: 'wait', bucket: 'method' });
    expect(await album(gate, '3', 'sendMessage')).toMatchObject({ kind: 'ok' });
  });

  it('should let the config change a default method bucket, turn one off, or turn them all off', () => {
    const p: string[] = [];
    expect(outboundSettings(undefined, p).buckets.methods).toEqual({
      sendMediaGroup: { perSecond: 15, burst: 5 },
    });
    const one = outboundSettings(
      { buckets: { methods: { sendMediaGroup: { rate: '10/s', burst: 10 } } } },
      p,
    );
    expect(one.buckets.methods.sendMediaGroup).toEqual({ perSecond: 10, burst: 10 });
    const off = outboundSettings({ buckets: { methods: { sendMediaGroup: 'off' } } }, p);
    expect(off.buckets.methods).toEqual({});
    const none = outboundSettings({ buckets: { methods: 'off' } }, p);
    expect(none.buckets.methods).toEqual({});
    expect(p).toEqual([]);
    // A bot's own buckets are laid over the global ones: the defaults stay unless it turns them off.
    const bot = parseBuckets({ bot: { rate: '10/s' } }, one.buckets, 'b', p);
    expect(bot.methods).toEqual(one.buckets.methods);
    expect(parseBuckets({ methods: 'off' }, one.buckets, 'b', p).methods).toEqual({});
  });
});
