import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.error.js';
import { loadAppConfig } from '../app.config.js';
import { printableConfig } from './mask.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadAppConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  return [];
}

describe(loadAppConfig.name, () => {
  it('should start with nothing set, on embedded defaults', () => {
    const c = loadAppConfig({});
    expect(c.port).toBe(3000);
    expect(c.httpAdapter).toBe('express');
    expect(c.redis.url).toBeUndefined();
    expect(c.search.backend).toBe('sqlite');
    expect(c.inference.upstreamUrl).toBeUndefined();
    expect(Object.keys(c.policies)).toEqual(
      expect.arrayContaining(['search', 'search-item', 'inference', 'admin']),
    );
  });

  it('should list every problem at once', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      HTTP_ADAPTER: 'koa',
      REDIS_URL: 'http://x',
      SEARCH_BACKEND: 'postgres',
      TRUSTED_PROXIES: '10.0.0.0/8,not-an-ip',
      LOG_LEVEL: 'loud',
      ADMIN_TOKEN: 'short',
      REDIS_CLUSTER_NODES: 'a:1,b',
    });
    expect(problems).toHaveLength(8);
    expect(problems.join('\n')).toMatch(/PORT/);
    expect(problems.join('\n')).toMatch(/HTTP_ADAPTER/);
    expect(problems.join('\n')).toMatch(/REDIS_URL/);
    expect(problems.join('\n')).toMatch(/DATABASE_URL/);
    expect(problems.join('\n')).toMatch(/not-an-ip/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL/);
    expect(problems.join('\n')).toMatch(/ADMIN_TOKEN/);
    expect(problems.join('\n')).toMatch(/REDIS_CLUSTER_NODES/);
  });

  it('should read Sentinel and shutdown settings, masking the Sentinel password when printed', () => {
    const c = loadAppConfig({
      REDIS_SENTINELS: 's1:26379, s2:26380',
      REDIS_SENTINEL_NAME: 'primary-a',
      REDIS_SENTINEL_PASSWORD: 'sentinel-secret-1',
      SHUTDOWN_DELAY_MS: '2000',
    });
    expect(c.redis.sentinels).toEqual([
      { host: 's1', port: 26379 },
      { host: 's2', port: 26380 },
    ]);
    expect(c.redis.sentinelName).toBe('primary-a');
    expect(c.shutdown).toEqual({ delayMs: 2000, timeoutMs: 10_000 });
    expect(JSON.stringify(printableConfig(c))).not.toContain('sentinel-secret-1');
    expect(loadAppConfig({}).redis.sentinelName).toBe('mymaster');
    expect(problemsOf({ REDIS_SENTINELS: 'nope', SHUTDOWN_TIMEOUT_MS: '-1' })).toEqual([
      'REDIS_SENTINELS entries must be host:port (got "nope")',
      expect.stringMatching(/^SHUTDOWN_TIMEOUT_MS/),
    ]);
  });

  it('should never echo a secret in a problem', () => {
    const problems = problemsOf({
      ADMIN_TOKEN: 'tiny-secret',
      DATABASE_URL: 'mysql://u:hunter2hunter2@h/db',
    });
    expect(problems.join('\n')).not.toMatch(/tiny-secret|hunter2/);
  });

  it('should merge policies from a YAML config file option by option', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-cfg-'));
    const file = join(dir, 'rampart.yaml');
    writeFileSync(
      file,
      'policies:\n  search:\n    locks:\n      rateLimit:\n        mode: shadow\n  extra:\n    locks:\n      signature:\n        mode: "off"\nrateLimit:\n  hashKey: abc\n',
    );
    const c = loadAppConfig({ CONFIG_FILE: file });
    expect(c.policies.search!.locks.rateLimit!.mode).toBe('shadow');
    expect(c.policies.search!.description).toMatch(/search/);
    expect(c.policies.extra!.locks.signature!.mode).toBe('off');
    expect(c.sections.rateLimit).toEqual({ hashKey: 'abc' });
  });

  it('should reject a config file that is not valid YAML or JSON, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-cfg-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{ "policies": ');
    expect(problemsOf({ CONFIG_FILE: file })[0]).toMatch(/bad\.json.*not valid JSON/);
    expect(problemsOf({ CONFIG_FILE: join(dir, 'missing.yaml') })[0]).toMatch(/cannot be read/);
  });

  it('should reject a bad lock mode in the config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-cfg-'));
    const file = join(dir, 'c.json');
    writeFileSync(
      file,
      JSON.stringify({
        policies: { search: { locks: { rateLimit: { mode: 'maybe' } } }, 'Bad Name': {} },
      }),
    );
    const problems = problemsOf({ CONFIG_FILE: file });
    expect(problems).toHaveLength(2);
  });

  it('should mask secrets wherever the configuration is printed', () => {
    const c = loadAppConfig({
      ADMIN_TOKEN: 'admin-token-0123456789',
      REDIS_URL: 'redis://:r3dis-pass@localhost:6379',
      INFERENCE_UPSTREAM_URL: 'https://api.example.com/v1',
      INFERENCE_UPSTREAM_API_KEY: 'sk-upstream-key',
      SEARCH_BACKEND: 'postgres',
      DATABASE_URL: 'postgres://app:pg-pass@db:5432/search',
    });
    const printed = JSON.stringify(printableConfig(c));
    for (const secret of ['admin-token-0123456789', 'r3dis-pass', 'sk-upstream-key', 'pg-pass']) {
      expect(printed).not.toContain(secret);
    }
    expect(printed).toContain('api.example.com');
  });
});
