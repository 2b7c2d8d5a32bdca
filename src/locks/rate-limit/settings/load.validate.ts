import { isRecord } from '../../../common/is-record.js';
import { validateConditions } from '../rate-limit.validate-extensions.js';

const rank = (v: unknown): boolean =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 9;

/** Problems with a slice's dynamic-quota options: `degradeRank` (slice and rules), rules' `risk`, `criticalWhen`. */
export function validateLoadOptions(
  slice: Record<string, unknown>,
  path: string,
  attributes: readonly string[],
): string[] {
  const p: string[] = [];
  if (slice.degradeRank !== undefined && !rank(slice.degradeRank))
    p.push(
      `${path}.degradeRank: must be an integer from 0 to 9 (higher gives way first under load)`,
    );
  if (Array.isArray(slice.rules))
    slice.rules.forEach((r, i) => {
      if (isRecord(r) && r.degradeRank !== undefined && !rank(r.degradeRank))
        p.push(`${path}.rules[${i}].degradeRank: must be an integer from 0 to 9`);
      if (isRecord(r) && r.risk !== undefined && typeof r.risk !== 'boolean')
        p.push(`${path}.rules[${i}].risk: must be true or false`);
    });
  if (slice.criticalWhen !== undefined)
    p.push(
      ...validateConditions({ when: slice.criticalWhen }, path, attributes).map((m) =>
        m.replace(`${path}.when`, `${path}.criticalWhen`),
      ),
    );
  return p;
}
