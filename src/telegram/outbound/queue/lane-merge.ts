/**
 * A chat's lane after a move (`migrate_to_chat_id`): the moved jobs (oldest first) merged into the jobs
 * already in the new chat's lane by posting time, a held head first (it may be being sent). On a tie the
 * moved job goes first: it was queued before the move became known. lua/telegram_queue_adopt.lua does the
 * same in Redis.
 */
export function mergeLane<T>(
  there: T[],
  held: boolean,
  moved: T[],
  createdAt: (x: T) => number,
): T[] {
  const out = held ? there.slice(0, 1) : [];
  const rest = held ? there.slice(1) : there.slice();
  let i = 0;
  for (const m of moved) {
    while (i < rest.length && createdAt(rest[i]!) < createdAt(m)) out.push(rest[i++]!);
    out.push(m);
  }
  return out.concat(rest.slice(i));
}
