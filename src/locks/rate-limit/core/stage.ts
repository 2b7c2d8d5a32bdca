import { randomInt } from 'node:crypto';

/**
 * Staged enforcement (docs/rate-limit.md#staged-enforcement): a rule in `mode: enforce` with a `stage`
 * enforces only on a share of instances and of subjects; everywhere else it runs as shadow (decided,
 * counted as `shadow_rejected`, never refusing).
 */
export interface RuleStage {
  /** Percent of subjects (by bucket key) the rule enforces for, 0–100. */
  subjects: number;
  /** Percent of instances the rule enforces on, 0–100 (each instance draws its place once, at boot). */
  instances: number;
}

/** This instance's place among instances, 0–99, drawn once per process: stable for its life. */
export const INSTANCE_PLACE = randomInt(100);

/** True when this instance is in a stage's share of instances. */
export function instanceStaged(stage: RuleStage, place = INSTANCE_PLACE): boolean {
  return place < stage.instances;
}

/**
 * The place of a bucket key among subjects, 0–99 (FNV-1a of the key): the same on every instance that
 * hashes subjects with the same key secret, so a subject is staged in or out everywhere alike.
 */
export function subjectPlace(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % 100;
}
