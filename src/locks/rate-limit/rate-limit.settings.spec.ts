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
});
