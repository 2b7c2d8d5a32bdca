import { afterEach, describe, expect, it } from 'vitest';
import { ProblemException } from '../../../common/problem.exception.js';
import { GENERIC_BREAKER_OPTIONS } from '../circuit-breaker.defaults.js';
import type { BreakerOptions } from '../circuit-breaker.types.js';
import { OpossumWindow } from './opossum-window.js';

const OPTIONS: BreakerOptions = { ...GENERIC_BREAKER_OPTIONS, volumeThreshold: 2 };
const down = (): Promise<never> =>
  Promise.reject(new ProblemException(503, 'search_unavailable', 'x'));
const missing = (): Promise<never> =>
  Promise.reject(new ProblemException(404, 'item_not_found', 'x'));

const windows: OpossumWindow[] = [];
function setup(options: BreakerOptions = OPTIONS) {
  let opened = 0;
  const w = new OpossumWindow('b', options, () => opened++);
  windows.push(w);
  const fail = async (n: number, call = down): Promise<void> => {
    for (let i = 0; i < n; i++) await w.fire(call).catch(() => undefined);
  };
  return { w, fail, opened: () => opened };
}
afterEach(() => {
  for (const w of windows.splice(0)) w.shutdown();
});

describe(OpossumWindow.name, () => {
  it('should open over the thresholds, counting backend failures only', async () => {
    const clientErrors = setup();
    await clientErrors.fail(10, missing);
    expect(clientErrors.opened()).toBe(0);
    expect(clientErrors.w.stats.failures).toBe(0);
    const { fail, opened } = setup();
    await fail(1);
    expect(opened()).toBe(0);
    await fail(1);
    expect(opened()).toBe(1);
  });

  it('should keep the counts when retuned, and start a clean window when traffic comes back', async () => {
    const { w, fail } = setup();
    await fail(1);
    w.retune({ ...OPTIONS, volumeThreshold: 5 });
    expect(w.stats.failures).toBe(1);
    w.retune({ ...OPTIONS, volumeThreshold: 5, timeoutMs: 1 }); // not an option opossum reads
    expect(w.stats.failures).toBe(1);
    w.follow('half_open', 'recovering');
    expect(w.stats.failures).toBe(0);
  });

  it('should never open while forced closed, even after a new opossum replaced the old one', async () => {
    const { w, fail, opened } = setup();
    w.follow('closed', 'forced_closed');
    await fail(5);
    w.retune({ ...OPTIONS, volumeThreshold: 1 });
    await fail(5);
    expect(opened()).toBe(0);
    w.follow('forced_closed', 'closed');
    await fail(2);
    expect(opened()).toBe(1);
  });
});
