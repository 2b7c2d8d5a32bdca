import type { Counter } from 'prom-client';
import type { TokenUse } from '../../http/request-state.js';
import { usedBy } from '../../locks/rate-limit/limiter/reserved-tokens.js';
import type { MetricsService } from '../../metrics/metrics.service.js';
import type { ChargeHow } from './settle-usage.js';

/**
 * How inference calls' token charges were settled (docs/inference.md#how-a-charge-was-settled): calls, tokens
 * charged (prompt + completion) and tokens the upstream's `usage` reported, per `how`. No app, user or model
 * label: per-app usage is read from GET /admin/usage.
 */
export class ChargeMetrics {
  private readonly calls: Counter<'how'>;
  private readonly charged: Counter<'how'>;
  private readonly reported: Counter<'how'>;

  constructor(metrics: MetricsService) {
    this.calls = metrics.counter(
      'rampart_inference_charge_total',
      'Inference calls whose token reservation was settled, by how the charge was decided (usage, counted, abort_partial, abort_cut, error_partial, prompt_only, error_refund)',
      ['how'],
    );
    this.charged = metrics.counter(
      'rampart_inference_charged_tokens_total',
      'Tokens (prompt + completion) charged by inference settlements, by how the charge was decided',
      ['how'],
    );
    this.reported = metrics.counter(
      'rampart_inference_reported_tokens_total',
      "Tokens (prompt + completion) the upstream's usage reported for settled inference calls, by how the charge was decided",
      ['how'],
    );
  }

  /** One settlement: what was charged, and what the upstream reported (undefined: it reported nothing). */
  record(how: ChargeHow, used: TokenUse, reported?: TokenUse): void {
    this.calls.inc({ how });
    // Whole tokens, as a `total` tokens rule counts them.
    this.charged.inc({ how }, usedBy('total', used));
    this.reported.inc({ how }, reported ? usedBy('total', reported) : 0);
  }
}
