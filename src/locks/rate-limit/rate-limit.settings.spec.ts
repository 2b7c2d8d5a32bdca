import { describe, expect, it } from 'vitest';
import { validateSettings } from './rate-limit.settings.js';

describe(validateSettings.name, () => {
  it('should read the CONFIG_FILE section with defaults', () => {
    const { settings, problems } = validateSettings({
      userHeader: 'X-User-Id',
      fuse: { limit: 1000, window: '1s' },
      heartbeat: '5s',
    });
    expect(problems).toEqual([]);
    expect(settings).toMatchObject({
      userHeader: 'x-user-id',
      fuse: { limit: 1000, windowMs: 1000 },
      heartbeatMs: 5000,
      clock: 'redis',
    });
  });

  it('should list every bad setting', () => {
    const { problems } = validateSettings({
      clock: 'sundial',
      fuse: { limit: 0 },
      denyCacheSize: -1,
      extra: 1,
    });
    expect(problems).toHaveLength(4);
  });

  it('should read the memory caps, and refuse a cap out of range or an unknown one', () => {
    const defaults = {
      entries: 200_000,
      riskRecords: 100_000,
      riskMarkers: 100_000,
      riskChatSets: 10_000,
    };
    expect(validateSettings({}).settings.memory).toEqual(defaults);
    expect(
      validateSettings({ memory: { entries: 5_000, riskMarkers: 50, riskChatSets: 20 } }).settings
        .memory,
    ).toEqual({ ...defaults, entries: 5_000, riskMarkers: 50, riskChatSets: 20 });
    for (const memory of [
      { entries: 1 },
      { riskRecords: 1.5 },
      { riskMarkers: 0 },
      { riskChatSets: 'many' },
      { buckets: 10_000 },
      7,
    ])
      expect(validateSettings({ memory }).problems).toEqual([
        'CONFIG_FILE rateLimit.memory: must be {entries?, riskRecords?, riskMarkers?, riskChatSets?}, integers from 10 to 50000000',
      ]);
  });

  it('should read maxPaced (default 1000), an integer from 0', () => {
    expect(validateSettings({}).settings.maxPaced).toBe(1000);
    expect(validateSettings({ maxPaced: 5 }).settings.maxPaced).toBe(5);
    expect(validateSettings({ maxPaced: -1 }).problems).toEqual([
      'CONFIG_FILE rateLimit.maxPaced: must be an integer between 0 and 1000000',
    ]);
  });

  it('should read maxPacedPerApp and failQueuePerApp (default a quarter of maxPaced and failQueueMax)', () => {
    const d = validateSettings({}).settings;
    expect([d.maxPacedPerApp, d.failQueuePerApp]).toEqual([250, 250]);
    const small = validateSettings({ maxPaced: 5, failQueueMax: 1 }).settings;
    expect([small.maxPacedPerApp, small.failQueuePerApp]).toEqual([2, 1]);
    const set = validateSettings({ maxPacedPerApp: 7, failQueuePerApp: 9 }).settings;
    expect([set.maxPacedPerApp, set.failQueuePerApp]).toEqual([7, 9]);
    expect(validateSettings({ failQueuePerApp: 0 }).problems).toEqual([
      'CONFIG_FILE rateLimit.failQueuePerApp: must be an integer between 1 and 100000',
    ]);
  });
});
