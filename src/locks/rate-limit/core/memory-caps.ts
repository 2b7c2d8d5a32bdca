/**
 * Default caps of the in-memory stores (CONFIG_FILE `rateLimit.memory`), with what an entry
 * costs as test/bench/memory.bench.mjs measures it (docs/rate-limit.md#memory-bounds):
 * about 340 bytes of heap per entry, keys included, and about 1.6× that in RSS.
 */

/** Keys (buckets, penalties, claims, told marks): about 240 bytes each with its key; ~70 MB of heap full. */
export const MEMORY_ENTRIES = 200_000;

/** Risk records: about 290 bytes each with its key (420 with signal counts); ~30–40 MB of heap full. */
export const RISK_RECORDS = 100_000;

/** Payload markers (a repeat within the window is a repeated_payload): a lost one misses one repeat. */
export const RISK_MARKERS = 100_000;

/** Chat sets (distinct chats of a subject within the window): a lost one misses a spread. */
export const RISK_CHAT_SETS = 10_000;
