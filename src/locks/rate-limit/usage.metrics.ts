import type { Counter } from 'prom-client';
import type { MetricsService } from '../../metrics/metrics.service.js';

/** Distinct model label values per policy (model names come from clients). */
export const MAX_MODEL_LABELS = 32;

/**
 * The rate limiter's usage series: tokens and spend of answers, counted when a reservation is settled.
 * Their model label comes from the client, so it is capped per policy.
 */
export class UsageMetrics {
  readonly tokens: Counter<'policy' | 'rule' | 'model' | 'count'>;
  readonly spend: Counter<'policy' | 'model'>;
  /** Model label values seen per policy (bounded: past MAX_MODEL_LABELS a new name is `other`). */
  private readonly models = new Map<string, Set<string>>();

  constructor(m: MetricsService) {
    this.tokens = m.counter(
      'rampart_ratelimit_tokens_used_total',
      'Tokens answers used, as each tokens rule counts them (count: total, prompt, completion), at settlement; model: first 32 names per policy, then other',
      ['policy', 'rule', 'model', 'count'],
    );
    this.spend = m.counter(
      'rampart_ratelimit_spend_total',
      'Spend of answers in micro-dollars (tokens × inference.prices), at settlement; model: first 32 names per policy, then other',
      ['policy', 'model'],
    );
  }

  /**
   * Tokens an answer used, as one tokens rule counts them (`count`: total, prompt or completion), when its
   * reservation is settled. The model comes from the client: the first MAX_MODEL_LABELS names a policy sees get
   * their own label (as the bucket keys write them: plain, else a hash; the caller's `modelPart`), every later one is `other`.
   */
  tokensUsed(policy: string, rule: string, model: string, count: string, n: number): void {
    if (n <= 0) return;
    this.tokens.inc({ policy, rule, model: this.modelLabel(policy, model), count }, n);
  }

  /** Spend of one answer in micro-dollars (docs/quotas.md#usage-and-spend), its model label capped as above. */
  spent(policy: string, model: string, micros: number): void {
    if (micros <= 0) return;
    this.spend.inc({ policy, model: this.modelLabel(policy, model) }, micros);
  }

  private modelLabel(policy: string, model: string): string {
    let seen = this.models.get(policy);
    if (!seen) this.models.set(policy, (seen = new Set()));
    if (seen.has(model)) return model;
    if (seen.size >= MAX_MODEL_LABELS) return 'other';
    seen.add(model);
    return model;
  }
}
