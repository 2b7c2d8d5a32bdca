/**
 * Rate-limit cost of an inference request, in tokens of the limiter's bucket,
 * by `max_tokens` band: ≤ 256 → 1, ≤ 1024 → 2, ≤ 4096 → 4, larger → 8.
 * A missing or invalid `max_tokens` counts as the default (256) — validation
 * rejects it later; the limiter must still charge something first.
 */
export const INFERENCE_COST_BANDS: readonly { upTo: number; cost: number }[] = [
  { upTo: 256, cost: 1 },
  { upTo: 1024, cost: 2 },
  { upTo: 4096, cost: 4 },
  { upTo: Number.POSITIVE_INFINITY, cost: 8 },
];

export function inferenceCost(body: unknown): number {
  const raw = (body as { max_tokens?: unknown } | null | undefined)?.max_tokens;
  const maxTokens = typeof raw === 'number' && Number.isFinite(raw) && raw >= 1 ? raw : 256;
  return INFERENCE_COST_BANDS.find((b) => maxTokens <= b.upTo)!.cost;
}
