import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HotCounter } from './hot-counter.js';

describe(HotCounter.name, () => {
  const make = () => {
    const registry = new Registry();
    const hot = new HotCounter(registry, 'test_hot_total', 'help', ['lock', 'outcome'] as const);
    return { registry, hot };
  };

  it('should show exact counts per label set whenever the metrics are read, never twice', async () => {
    const { registry, hot } = make();
    hot.inc({ lock: 'signature', outcome: 'allowed' });
    hot.inc({ lock: 'signature', outcome: 'allowed' }, 2);
    hot.inc({ lock: 'rateLimit', outcome: 'rejected' });
    const text = await registry.metrics();
    expect(text).toContain('test_hot_total{lock="signature",outcome="allowed"} 3');
    expect(text).toContain('test_hot_total{lock="rateLimit",outcome="rejected"} 1');
    hot.inc({ lock: 'signature', outcome: 'allowed' });
    const values = (await hot.counter.get()).values;
    expect(values.find((v) => v.labels.lock === 'signature')?.value).toBe(4);
    expect(values.find((v) => v.labels.lock === 'rateLimit')?.value).toBe(1);
    expect(await registry.metrics()).toContain(
      'test_hot_total{lock="signature",outcome="allowed"} 4',
    );
  });

  it('should count through a kept cell as through inc, across reads', async () => {
    const { registry, hot } = make();
    const cell = hot.cell({ lock: 'signature', outcome: 'rejected' });
    cell.n += 2;
    hot.inc({ lock: 'signature', outcome: 'rejected' });
    expect(await registry.metrics()).toContain(
      'test_hot_total{lock="signature",outcome="rejected"} 3',
    );
    cell.n += 1; // the same cell keeps counting after a read
    expect(await registry.metrics()).toContain(
      'test_hot_total{lock="signature",outcome="rejected"} 4',
    );
  });

  it('should keep label sets apart even when their values run together', async () => {
    const { registry, hot } = make();
    hot.inc({ lock: 'a', outcome: 'bc' });
    hot.inc({ lock: 'ab', outcome: 'c' });
    const text = await registry.metrics();
    expect(text).toContain('test_hot_total{lock="a",outcome="bc"} 1');
    expect(text).toContain('test_hot_total{lock="ab",outcome="c"} 1');
  });

  it('should count a counter without labels', async () => {
    const registry = new Registry();
    const hot = new HotCounter(registry, 'test_plain_total', 'help', []);
    hot.inc({});
    hot.inc({}, 4);
    expect(await registry.metrics()).toContain('test_plain_total 5');
  });
});
