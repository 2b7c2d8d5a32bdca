import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/config.error.js';
import { loadAppConfig } from '../app.config.js';
import { adminSettings } from './admin-settings.js';

const withSection = (admin: unknown) => ({ ...loadAppConfig({}), sections: { admin } });

describe(adminSettings.name, () => {
  it('should default every setting', () => {
    expect(adminSettings(loadAppConfig({}))).toEqual({
      syncIntervalMs: 30000,
      historyLimit: 100,
      auditMaxLen: 10000,
      statsIntervalMs: 2000,
      redisTimeoutMs: 1000,
      seriesStepMs: 5000,
      redisSampleMs: 30000,
      redisScanMaxKeys: 200000,
    });
  });

  it('should take valid values from CONFIG_FILE `admin:`', () => {
    expect(adminSettings(withSection({ syncIntervalMs: 250, historyLimit: 20 }))).toMatchObject({
      syncIntervalMs: 250,
      historyLimit: 20,
    });
  });

  it('should list every problem at once', () => {
    try {
      adminSettings(withSection({ syncIntervalMs: 0, historyLimit: 1.5, colour: 'red' }));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toHaveLength(3);
    }
    expect(() => adminSettings(withSection([]))).toThrow(ConfigError);
  });
});
