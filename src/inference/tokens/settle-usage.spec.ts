import { describe, expect, it } from 'vitest';
import type { TokenReservation } from '../../http/request-state.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { InferenceError, upstreamFailed } from '../inference.errors.js';
import { ChargeMetrics } from './charge-metrics.js';
import { settlementOf } from './settle-usage.js';
import { UsageMeter } from './usage-meter.js';

const reservation: TokenReservation = {
  reserved: { prompt: 12, completion: 64 },
  hold: () => undefined,
  settle: () => true,
};
const chunk = (content: string, finish: string | null = null): unknown => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});
const clientClosed = new InferenceError('client_closed', 499, 'client_closed', 'gone');

/** A meter that saw `words` one-token deltas of a stream that opened. */
function streamed(words: number, finish = false): UsageMeter {
  const m = new UsageMeter('gpt-4o-mini');
  for (let i = 0; i < words; i++) m.see(chunk(' the', finish && i === words - 1 ? 'stop' : null));
  return m;
}

describe('settlementOf', () => {
  it("should settle by the upstream's usage whenever it came, an aborted stream's too", () => {
    const m = streamed(3);
    m.stop = 'drained';
    m.see({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 4 } });
    expect(settlementOf(reservation, m, true, undefined)).toEqual({
      used: { prompt: 10, completion: 4 },
      how: 'usage',
    });
  });

  it('should tell an answer that ended whole from a stream stopped and drained, cut, or failed mid-way', () => {
    const whole = streamed(3, true);
    expect(settlementOf(reservation, whole, true, undefined)).toEqual({
      used: { prompt: 12, completion: 3 },
      how: 'counted',
    });
    const json = new UsageMeter('gpt-4o-mini');
    json.answer({ choices: [{ index: 0, message: { content: ' the budget' } }] });
    expect(settlementOf(reservation, json, true, undefined).how).toBe('counted');
    const drained = streamed(2);
    drained.stop = 'drained';
    expect(settlementOf(reservation, drained, true, clientClosed)).toEqual({
      used: { prompt: 12, completion: 2 },
      how: 'abort_partial',
    });
    const cut = streamed(2);
    cut.stop = 'cut';
    expect(settlementOf(reservation, cut, true, clientClosed).how).toBe('abort_cut');
    expect(settlementOf(reservation, streamed(2), true, upstreamFailed('reset')).how).toBe(
      'error_partial',
    );
  });

  it('should charge the prompt of a call left before any answer, and nothing for an upstream error', () => {
    const none = new UsageMeter('gpt-4o-mini');
    expect(settlementOf(reservation, none, false, clientClosed)).toEqual({
      used: { prompt: 12, completion: 0 },
      how: 'prompt_only',
    });
    expect(settlementOf(reservation, none, false, upstreamFailed('boom', 500))).toEqual({
      used: { prompt: 0, completion: 0 },
      how: 'error_refund',
    });
  });
});

describe(ChargeMetrics.name, () => {
  it('should count calls, charged and reported tokens per how, with no other label', async () => {
    const metrics = new MetricsService();
    const charges = new ChargeMetrics(metrics);
    charges.record('usage', { prompt: 10, completion: 4 }, { prompt: 10, completion: 4 });
    charges.record('abort_partial', { prompt: 12, completion: 2 });
    charges.record('abort_partial', { prompt: 12, completion: 5 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('rampart_inference_charge_total{how="usage"} 1');
    expect(text).toContain('rampart_inference_charge_total{how="abort_partial"} 2');
    expect(text).toContain('rampart_inference_charged_tokens_total{how="usage"} 14');
    expect(text).toContain('rampart_inference_charged_tokens_total{how="abort_partial"} 31');
    expect(text).toContain('rampart_inference_reported_tokens_total{how="usage"} 14');
    expect(text).toContain('rampart_inference_reported_tokens_total{how="abort_partial"} 0');
  });
});
