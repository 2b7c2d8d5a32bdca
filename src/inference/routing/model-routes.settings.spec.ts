import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/config.error.js';
import type { RampartConfig } from '../../config/config.types.js';
import { modelRoutes } from './model-routes.settings.js';
import { withUpstreamPolicies } from './upstream-policies.js';

const config = (inference: unknown): RampartConfig =>
  ({ sections: inference === undefined ? {} : { inference } }) as unknown as RampartConfig;

const problems = (section: unknown, env = {}): readonly string[] => {
  try {
    modelRoutes(config(section), env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems ?? [String(err)];
  }
};

describe(modelRoutes.name, () => {
  it('should read aliases with their upstreams, defaults and keys from the environment', () => {
    const routes = modelRoutes(
      config({
        models: {
          'gpt-4o': {
            upstreams: [
              { name: 'openai', url: 'https://api.openai.com/v1', model: 'gpt-4o', apiKeyEnv: 'K' },
              {
                name: 'azure',
                url: 'https://x.example/v1',
                model: 'gpt4o',
                weight: 2,
                priority: 1,
              },
            ],
          },
        },
      }),
      { K: 'sk-secret' },
    );
    expect(routes.get('gpt-4o')).toEqual([
      expect.objectContaining({
        name: 'openai',
        weight: 1,
        priority: 0,
        apiKey: 'sk-secret',
        timeoutMs: 10_000,
        backend: 'inference-upstream-openai',
      }),
      expect.objectContaining({ name: 'azure', weight: 2, priority: 1, apiKey: undefined }),
    ]);
    expect(modelRoutes(config(undefined), {}).size).toBe(0);
  });

  it('should list every problem at once, with its path', () => {
    const list = problems(
      {
        models: {
          a: {
            upstreams: [
              { name: 'X!', url: 'ftp://h', model: '', weight: 0, apiKeyEnv: 'NOPE', extra: 1 },
            ],
          },
          b: { upstreams: [] },
          c: {
            upstreams: [
              { name: 'dup', url: 'http://u:p@h/v1', model: 'm' },
              { name: 'dup', url: 'http://h/v1', model: 'm' },
            ],
          },
        },
        other: 1,
      },
      {},
    );
    for (const part of [
      'inference.other: unknown setting',
      'models.a.upstreams[0].extra: unknown setting',
      'models.a.upstreams[0].name must match',
      'models.a.upstreams[0].url must be an http(s) URL without credentials',
      'models.a.upstreams[0].model must be',
      'models.a.upstreams[0].weight must be',
      'models.a.upstreams[0].apiKeyEnv: the variable NOPE is not set',
      'models.b.upstreams must be a list of 1 to 16 upstreams',
      'models.c.upstreams[0].url must be an http(s) URL without credentials',
    ])
      expect(
        list.some((p) => p.includes(part)),
        part,
      ).toBe(true);
  });

  it('should refuse one upstream name twice (one name, one breaker)', () => {
    const up = { name: 'same', url: 'http://h/v1', model: 'm' };
    const list = problems({ models: { a: { upstreams: [up] }, b: { upstreams: [up] } } });
    expect(list.some((p) => p.includes('"same" is used twice'))).toBe(true);
  });
});

describe(withUpstreamPolicies.name, () => {
  it('should derive one breaker-only policy per upstream from the inference breaker', () => {
    const inference = {
      locks: {
        circuitBreaker: {
          mode: 'enforce' as const,
          backend: 'inference',
          capacity: 128,
          volumeThreshold: 10,
          force: 'open',
        },
      },
    };
    const out = withUpstreamPolicies(
      { inference },
      { models: { m: { upstreams: [{ name: 'a', timeoutMs: 500, capacity: 4 }, { name: 'b' }] } } },
    );
    expect(out['inference-upstream-a']?.locks).toEqual({
      signature: { mode: 'off' },
      rateLimit: { mode: 'off' },
      cacheShield: { mode: 'off' },
      circuitBreaker: {
        mode: 'enforce',
        backend: 'inference-upstream-a',
        stale: false,
        capacity: 4,
        volumeThreshold: 10,
        timeoutMs: 500,
      },
    });
    expect(out['inference-upstream-b']?.locks.circuitBreaker).toMatchObject({
      capacity: 128,
      timeoutMs: 10_000,
    });
    expect(out.inference).toBe(inference);
  });
});
