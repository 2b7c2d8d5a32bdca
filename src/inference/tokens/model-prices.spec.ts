import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../app.config.js';
import { ConfigError } from '../../config/config.error.js';
import { spendMicros } from '../../locks/rate-limit/core/usage-keys.js';
import { modelRoutes } from '../routing/model-routes.settings.js';
import { modelPrices } from './model-prices.js';

const withPrices = (prices: unknown) => {
  const c = loadAppConfig({ LOG_LEVEL: 'silent' });
  return { ...c, sections: { ...c.sections, inference: { prices } } };
};

describe(modelPrices.name, () => {
  it('should read USD per 1M tokens per model, beside the model routes', () => {
    const c = withPrices({ 'gpt-4o-mini': { prompt: 0.15, completion: 0.6 } });
    expect(modelPrices(c).get('gpt-4o-mini')).toEqual({ prompt: 0.15, completion: 0.6 });
    expect(modelRoutes(c, {}).size).toBe(0);
  });

  it('should list every problem at once', () => {
    const c = withPrices({
      'bad model!': { prompt: 1, completion: 1 },
      a: { prompt: -1, completion: 'x' },
      b: { prompt: 1, completion: 1, cached: 1 },
    });
    let err: unknown;
    try {
      modelPrices(c);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toHaveLength(4);
  });
});

describe(spendMicros.name, () => {
  it('should charge tokens × USD per 1M tokens in whole micro-dollars', () => {
    expect(spendMicros(1_200, 300, { prompt: 0.15, completion: 0.6 })).toBe(360);
    expect(spendMicros(5, 8, { prompt: 2.5, completion: 10 })).toBe(93);
    expect(spendMicros(1_000, 1_000)).toBe(0);
  });
});
