import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ManualClock } from '../../../common/clock.js';
import { AppChange, AppRegistry, AppRegistryError } from './app-registry.js';
import { loadAppsFile, parseApps } from './apps-file.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const secret = (): string => randomBytes(32).toString('base64url');

function tmpFile(name: string, text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), 'rampart-apps-')), name);
  writeFileSync(f, text);
  return f;
}

describe(parseApps.name, () => {
  it('should load a valid app with defaults (active, debug off, service skew)', () => {
    const { apps, problems } = parseApps(
      { apps: [{ id: 'a1', tier: 'free', secrets: [{ id: 'k1', secret: secret() }] }] },
      'APPS_FILE',
      NOW,
    );
    expect(problems).toEqual([]);
    expect(apps[0]).toMatchObject({ id: 'a1', tier: 'free', active: true, debug: false });
    expect(apps[0]!.skewSeconds).toBeUndefined();
  });

  it('should list every problem at once and never echo a secret', () => {
    const shortSecret = 'too-short-secret';
    const { problems } = parseApps(
      {
        apps: [
          {
            id: 'bad id',
            tier: 'Gold',
            active: 'yes',
            debug: 1,
            skewSeconds: 0,
            colour: 'red',
            secrets: [
              { id: 'k1', secret: shortSecret },
              { id: 'k1', secret: ` ${secret()}` },
              { id: 'k3', secret: secret(), notAfter: 'tomorrow' },
            ],
          },
          {
            id: 'a2',
            tier: 'free',
            secrets: [1, 2, 3, 4].map((i) => ({ id: `k${i}`, secret: secret() })),
          },
          { id: 'a2', tier: 'free', secrets: [] },
          { id: 'a3', tier: 'free', secrets: [{ id: 'k1', secret: secret() }] },
          { id: 'a3', tier: 'free', secrets: [{ id: 'k1', secret: secret() }] },
        ],
      },
      'APPS_FILE',
      NOW,
    );
    const text = problems.join('\n');
    for (const needle of [
      'apps[0].id',
      'apps[0].tier',
      'apps[0].active',
      'apps[0].debug',
      'apps[0].skewSeconds',
      'apps[0].colour',
      'secrets[0].secret: must be a string of at least 32 bytes',
      'secrets[1].id: "k1" is used twice',
      'secrets[1].secret: must not start or end with white space',
      'secrets[2].notAfter',
      'apps[1].secrets: at most 3',
      'apps[2].secrets: must be a non-empty list',
      'apps[4].id: "a3" is defined twice',
    ]) {
      expect(text).toContain(needle);
    }
    expect(text).not.toContain(shortSecret);
  });

  it('should count only secrets that are still active against the limit of 3', () => {
    const secrets = [
      { id: 'old', secret: secret(), notAfter: '2025-12-31T00:00:00Z' },
      ...[1, 2, 3].map((i) => ({ id: `k${i}`, secret: secret() })),
    ];
    expect(parseApps([{ id: 'a1', tier: 'pro', secrets }], 'APPS_FILE', NOW).problems).toEqual([]);
  });
});

describe(loadAppsFile.name, () => {
  const def = {
    apps: [
      {
        id: 'a1',
        tier: 'free',
        skewSeconds: 60,
        debug: true,
        secrets: [{ id: 'k1', secret: secret(), notAfter: '2030-01-01T00:00:00Z' }],
      },
    ],
  };

  it('should read YAML and JSON files alike', () => {
    for (const f of [
      tmpFile('apps.yaml', stringify(def)),
      tmpFile('apps.json', JSON.stringify(def)),
    ]) {
      const { apps, problems } = loadAppsFile(f, NOW);
      expect(problems).toEqual([]);
      expect(apps[0]).toMatchObject({ id: 'a1', skewSeconds: 60, debug: true });
      expect(apps[0]!.secrets[0]!.notAfter).toBe(Date.parse('2030-01-01T00:00:00Z'));
    }
  });

  it('should accept the example apps file shipped for local use', () => {
    const { apps, problems } = loadAppsFile(
      new URL('../../../../test/fixtures/apps.example.yaml', import.meta.url).pathname,
      NOW,
    );
    expect(problems).toEqual([]);
    expect(apps.map((a) => [a.id, a.tier, a.active])).toEqual([
      ['demo-app', 'free', true],
      ['demo-pro', 'pro', true],
      ['demo-retired', 'free', false],
    ]);
  });

  it('should report an unreadable or invalid file', () => {
    expect(loadAppsFile('/nonexistent/apps.yaml', NOW).problems[0]).toMatch(/cannot be read/);
    expect(loadAppsFile(tmpFile('apps.json', '{oops'), NOW).problems[0]).toMatch(/not valid JSON/);
    expect(loadAppsFile(tmpFile('apps.yaml', 'just: text'), NOW).problems[0]).toMatch(
      /must hold a list of apps/,
    );
  });
});

describe(AppRegistry.name, () => {
  it('should create, deactivate, rotate and retire at run time, telling listeners', () => {
    const clock = new ManualClock(NOW);
    const reg = new AppRegistry(clock);
    const changes: AppChange[] = [];
    reg.onChange((c) => changes.push(c));
    const s1 = secret();
    const s2 = secret();
    reg.upsert({ id: 'a1', tier: 'free', secrets: [{ id: 'k1', secret: s1 }] });
    expect(reg.get('a1')?.active).toBe(true);
    reg.upsert({
      id: 'a1',
      tier: 'free',
      secrets: [
        { id: 'k1', secret: s1, notAfter: new Date(NOW + 1000).toISOString() },
        { id: 'k2', secret: s2 },
      ],
    });
    clock.set(NOW + 1000);
    expect(reg.list()[0]!.secrets).toEqual([
      { id: 'k1', notAfter: new Date(NOW + 1000).toISOString(), expired: true },
      { id: 'k2', expired: false },
    ]);
    reg.upsert({ id: 'a1', tier: 'free', active: false, secrets: [{ id: 'k2', secret: s2 }] });
    expect(reg.get('a1')?.active).toBe(false);
    expect(reg.remove('a1')).toBe(true);
    expect(reg.get('a1')).toBeUndefined();
    expect(changes.map((c) => c.kind)).toEqual(['upsert', 'upsert', 'upsert', 'remove']);
  });

  it('should refuse an invalid change whole and keep the old state', () => {
    const reg = new AppRegistry(new ManualClock(NOW));
    reg.replaceAll([{ id: 'a1', tier: 'free', secrets: [{ id: 'k1', secret: secret() }] }]);
    expect(() =>
      reg.upsert({ id: 'a1', tier: 'free', secrets: [{ id: 'k1', secret: 'short' }] }),
    ).toThrow(AppRegistryError);
    expect(() => reg.replaceAll([{ id: 'a2' }])).toThrow(AppRegistryError);
    expect(reg.size).toBe(1);
    expect(reg.get('a1')).toBeDefined();
  });

  it('should never show secret material in a listing or in JSON', () => {
    const s = secret();
    const reg = new AppRegistry(new ManualClock(NOW));
    reg.upsert({ id: 'a1', tier: 'free', secrets: [{ id: 'k1', secret: s }] });
    expect(JSON.stringify(reg.list())).not.toContain(s);
    expect(JSON.stringify(reg.get('a1'))).not.toContain(s);
    expect(String(reg.get('a1')?.secrets[0]?.key)).not.toContain(s);
  });
});
