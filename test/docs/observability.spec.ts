import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * Keeps the observability kit honest: the dashboard and the alert rules only
 * use series the service exports, every alert has a promtool unit test that
 * fires it, and every dashboard query is valid PromQL (checked by promtool).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');

/** Series a panel may show before the service exports them: the console's load-level slot. */
const PENDING = new Set(['rampart_load_level']);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [read(p)] : [];
  });
}

const exported = new Set(
  sources('src').flatMap((text) => [...text.matchAll(/'(rampart_[a-z0-9_]+)'/g)].map((m) => m[1]!)),
);
/** A series name as the code registers it (histograms export _bucket, _sum and _count). */
const base = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');

interface Dashboard {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string }[] };
}
const dashboard = JSON.parse(read('deploy/grafana/rampart.json')) as Dashboard;
const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));

type Rule = { record?: string; alert?: string; expr: string };
const rules = (
  parse(read('deploy/prometheus/rules.yml')) as { groups: { rules: Rule[] }[] }
).groups.flatMap((g) => g.rules);
type AlertTest = { alertname: string; exp_alerts: unknown[] };
const tests = (
  parse(read('deploy/prometheus/rules.test.yml')) as { tests: { alert_rule_test?: AlertTest[] }[] }
).tests.flatMap((t) => t.alert_rule_test ?? []);

const names = (expr: string): string[] =>
  [...expr.matchAll(/\b(rampart_[a-z0-9_]+)/g)].map((m) => m[1]!);

function promtool(): boolean {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    const msg =
      'NO PROMTOOL: the PromQL of the dashboard is not checked (apt-get install prometheus)';
    if (process.env.CI === 'true') throw new Error(`${msg} (CI=true makes this a failure)`);
    process.stderr.write(`\n*** ${msg} ***\n`);
    return false;
  }
}

describe('observability kit', () => {
  it('should only chart series the service exports', () => {
    const unknown = queries.flatMap(names).filter((n) => !exported.has(base(n)) && !PENDING.has(n));
    expect(unknown).toEqual([]);
    expect(queries.length).toBeGreaterThan(15);
  });

  it('should only alert on series the service exports', () => {
    const unknown = rules.flatMap((r) => names(r.expr)).filter((n) => !exported.has(base(n)));
    expect(unknown).toEqual([]);
  });

  it('should have a promtool test that fires every alert', () => {
    const alerts = rules.flatMap((r) => (r.alert ? [r.alert] : []));
    const fired = new Set(tests.filter((t) => t.exp_alerts.length > 0).map((t) => t.alertname));
    expect(alerts.filter((a) => !fired.has(a))).toEqual([]);
    expect(alerts).toEqual(
      expect.arrayContaining([
        'RampartRejectionRatioJump',
        'RampartShadowWouldBlockMany',
        'RampartRedisScriptErrors',
        'RampartRateLimitFallback',
        'RampartBreakerOpen',
        'RampartBloomFalsePositivesHigh',
        'RampartAdminSyncFailures',
      ]),
    );
  });

  it('should show the console overview panels, and Redis latency, Bloom and breaker panels', () => {
    const titles = dashboard.panels.map((p) => p.title);
    for (const t of [
      'Requests per second by policy',
      '$lock outcomes per second',
      'Policy version per instance',
      'Load level',
      'Lua script latency (p50 / p95 / p99)',
      'Bloom fill ratio',
      'Bloom false positives: measured vs target',
      'Breaker state',
    ])
      expect(titles).toContain(t);
  });

  it.skipIf(!promtool())('should write every dashboard query in valid PromQL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rampart-promql-'));
    try {
      const asRules = queries.map((q, i) => ({
        record: `dashboard:query_${i}`,
        expr: q
          .replaceAll('$__rate_interval', '1m')
          .replaceAll('$job', '.*')
          .replaceAll('$lock', 'rateLimit'),
      }));
      const file = join(dir, 'dashboard.rules.json');
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules: asRules }] }));
      execFileSync('promtool', ['check', 'rules', file], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
