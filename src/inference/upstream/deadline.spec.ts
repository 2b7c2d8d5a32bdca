import { describe, expect, it } from 'vitest';
import { Deadline } from './deadline.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(Deadline.name, () => {
  it('should abort its signal once the time is up', async () => {
    const d = new Deadline(5);
    await tick(30);
    expect(d.fired).toBe(true);
    expect(d.signal.aborted).toBe(true);
  });

  it('should not fire while paused, and fire after a touch', async () => {
    const d = new Deadline(10);
    d.pause();
    await tick(40);
    expect(d.fired).toBe(false);
    d.touch();
    await tick(40);
    expect(d.fired).toBe(true);
  });

  it('should never fire once cleared', async () => {
    const d = new Deadline(5);
    d.clear();
    await tick(30);
    expect(d.signal.aborted).toBe(false);
  });
});
