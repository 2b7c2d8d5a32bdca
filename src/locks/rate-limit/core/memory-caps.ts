/**
 * Default caps of the in-memory stores (CONFIG_FILE `rateLimit.memory`), with what an entry
 * costs as test/bench/memory.bench.mjs measures it (docs/rate-limit.md#memory-bounds).
 */

/** Keys (buckets, penalties, claims, told marks): about 240 bytes each with its key, 120 MB full. */
export const MEMORY_ENTRIES = 500_000;

/** Risk records: about 290 bytes each with its key (420 with signal counts), 60–85 MB full. */
export const RISK_RECORDS = 200_000;
