/** One row of a bot's `groupScale`: groups of at least `members` members get `factor` × the chat-wide bucket. */
export interface GroupScaleRow {
  members: number;
  factor: number;
}

const MAX_ROWS = 16;
const MAX_FACTOR = 100;

/**
 * Validates `telegram.bots[].groupScale`: 1–16 rows `{ members, factor }`, `members` integers ≥ 0 in strictly
 * ascending order, `factor` a number > 0 and ≤ 100. Pushes problems to `p`; undefined when absent or invalid.
 */
export function parseGroupScale(
  raw: unknown,
  at: string,
  p: string[],
): GroupScaleRow[] | undefined {
  if (raw === undefined) return undefined;
  const bad = () => {
    p.push(
      `${at}.groupScale must be 1–${MAX_ROWS} rows { members: integer ≥ 0, factor: number > 0 and ≤ ${MAX_FACTOR} }, members ascending`,
    );
    return undefined;
  };
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_ROWS) return bad();
  const rows: GroupScaleRow[] = [];
  for (const r of raw as unknown[]) {
    if (typeof r !== 'object' || r === null) return bad();
    const { members, factor, ...rest } = r as Record<string, unknown>;
    if (Object.keys(rest).length > 0) return bad();
    if (!Number.isSafeInteger(members) || (members as number) < 0) return bad();
    if (typeof factor !== 'number' || !(factor > 0) || factor > MAX_FACTOR) return bad();
    if (rows.length > 0 && (members as number) <= rows[rows.length - 1]!.members) return bad();
    rows.push({ members: members as number, factor });
  }
  return rows;
}

/** The factor of a group of `members`: the last row whose `members` it reaches; below the first row, 1. */
export function groupFactor(table: readonly GroupScaleRow[], members: number): number {
  let f = 1;
  for (const row of table) {
    if (members < row.members) break;
    f = row.factor;
  }
  return f;
}
