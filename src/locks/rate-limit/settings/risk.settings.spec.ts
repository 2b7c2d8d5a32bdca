import { describe, expect, it } from 'vitest';
import { bandOf } from '../core/risk-math.js';
import { validateRisk } from './risk.settings.js';

describe(validateRisk.name, () => {
  it('should read bands, weights and durations', () => {
    const { risk, problems } = validateRisk(
      {
        pointDecay: '1s',
        weights: { bad_signature: 9 },
        bands: [{ below: 0, multiplier: 2 }, { multiplier: 0.1 }],
      },
      'r',
    );
    expect(problems).toEqual([]);
    expect(risk.pointDecayMs).toBe(1000);
    expect(risk.weights.bad_signature).toBe(9);
    expect(risk.weights.not_found).toBe(1);
    expect(bandOf(-1, risk.bands)).toBe(2);
    expect(bandOf(0, risk.bands)).toBe(0.1);
  });

  it('should list every bad risk setting with its path', () => {
    const { problems } = validateRisk(
      {
        dimensions: ['global'],
        weights: { teleport: 1, not_found: -1 },
        bands: [{ below: 5, multiplier: 1 }, { below: 1, multiplier: 2 }, { multiplier: 1 }],
        chatSpread: { chats: 0, window: '1m' },
      },
      'CONFIG_FILE rateLimit.risk',
    );
    expect(problems).toEqual([
      'CONFIG_FILE rateLimit.risk.dimensions: must be a list of dimensions other than global',
      expect.stringMatching(/^CONFIG_FILE rateLimit\.risk\.weights\.teleport: unknown signal/),
      'CONFIG_FILE rateLimit.risk.weights.not_found: must be a number ≥ 0',
      expect.stringMatching(/^CONFIG_FILE rateLimit\.risk\.bands: must be a list/),
      'CONFIG_FILE rateLimit.risk.chatSpread: must be {chats: integer ≥ 1, window: duration}',
    ]);
  });

  it('should read the risk flush delay, 5 s by default, from 10 ms to 60 s', () => {
    expect(validateRisk(undefined, 'r').risk.flushMs).toBe(5_000);
    expect(validateRisk({ flush: '1s' }, 'r').risk.flushMs).toBe(1_000);
    expect(validateRisk({ flush: '2m' }, 'r').problems).toEqual([
      'r.flush: must be a duration from "10ms" to "60s"',
    ]);
  });
});
