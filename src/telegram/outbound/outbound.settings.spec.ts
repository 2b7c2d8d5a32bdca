import { describe, expect, it } from 'vitest';
import { outboundSettings } from './outbound.settings.js';

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
