import { Injectable } from '@nestjs/common';
import type { HotCounter } from '../../metrics/hot-counter.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import type { SignatureFailure } from './signature.problems.js';

/** The signature lock's Prometheus series. Labels: error code and scheme — never an app id or nonce. */
@Injectable()
export class SignatureMetrics {
  readonly failures: HotCounter<'code' | 'scheme'>;

  constructor(m: MetricsService) {
    this.failures = m.hotCounter(
      'rampart_signature_failures_total',
      'Requests refused by the signature lock, by error code and scheme',
      ['code', 'scheme'],
    );
  }

  /** Counts one refused request. */
  failure(f: SignatureFailure): void {
    this.failures.inc({ code: f.code, scheme: f.scheme });
  }
}
