import { Injectable } from '@nestjs/common';
import type { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/** Prometheus series of the admin API (labels: action names only). */
@Injectable()
export class AdminMetrics {
  /** Admin changes by action (`policy.lock_mode`, `app.create`, …) and result (`applied`, `rejected`, `unchanged`). */
  readonly changes: Counter<'action' | 'result'>;
  /** Version of the policy set this instance runs. */
  readonly policyVersion: Gauge;
  /** Admin requests refused for a missing or wrong bearer token. */
  readonly authFailures: Counter;
  /** Versions announced by the store that this instance could not apply (validation failed here). */
  readonly syncFailures: Counter;

  constructor(metrics: MetricsService) {
    this.changes = metrics.counter(
      'rampart_admin_changes_total',
      'Admin API changes by action and result',
      ['action', 'result'],
    );
    this.policyVersion = metrics.gauge(
      'rampart_policy_version',
      'Version of the route policy set in force on this instance',
    );
    this.authFailures = metrics.counter(
      'rampart_admin_auth_failures_total',
      'Admin requests refused for missing or invalid credentials',
    );
    this.syncFailures = metrics.counter(
      'rampart_admin_sync_failures_total',
      'Policy versions this instance could not apply',
    );
  }
}
