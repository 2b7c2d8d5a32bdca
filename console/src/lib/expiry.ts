/** How long a change lasts: the choices the console offers. */
export interface ExpiryChoice {
  id: string;
  label: string;
  /** Milliseconds from now; undefined = permanent; null = a time the user picks. */
  ms: number | undefined | null;
}

export const EXPIRY_CHOICES: readonly ExpiryChoice[] = [
  { id: 'permanent', label: 'until changed again', ms: undefined },
  { id: '5m', label: 'for 5 minutes', ms: 5 * 60_000 },
  { id: '15m', label: 'for 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'for 1 hour', ms: 3_600_000 },
  { id: '4h', label: 'for 4 hours', ms: 4 * 3_600_000 },
  { id: '24h', label: 'for 24 hours', ms: 24 * 3_600_000 },
  { id: 'at', label: 'until a time…', ms: null },
];

/**
 * The ISO instant a choice ends (undefined = permanent). `at` is the value of
 * a datetime-local input (local time) for the `at` choice. Throws a message
 * for a missing or past time.
 */
export function expiryInstant(choiceId: string, now: number, at = ''): string | undefined {
  const choice = EXPIRY_CHOICES.find((c) => c.id === choiceId);
  if (!choice || choice.ms === undefined) return undefined;
  if (choice.ms !== null) return new Date(now + choice.ms).toISOString();
  const t = new Date(at).getTime();
  if (!at || Number.isNaN(t)) throw new Error('Pick the date and time the change should end');
  if (t <= now) throw new Error('That time has passed: pick a time in the future');
  return new Date(t).toISOString();
}
