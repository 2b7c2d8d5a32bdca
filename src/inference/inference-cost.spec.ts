import { describe, expect, it } from 'vitest';
import { inferenceCost } from './inference-cost.js';

describe(inferenceCost.name, () => {
  it.each([
    [{ max_tokens: 1 }, 1],
    [{ max_tokens: 256 }, 1],
    [{ max_tokens: 257 }, 2],
    [{ max_tokens: 1024 }, 2],
    [{ max_tokens: 4096 }, 4],
    [{ max_tokens: 4097 }, 8],
    [{}, 1],
    [{ max_tokens: 'lots' }, 1],
    [null, 1],
  ])('should charge %j as %i', (body, cost) => {
    expect(inferenceCost(body)).toBe(cost);
  });
});
