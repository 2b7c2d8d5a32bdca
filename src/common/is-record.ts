/** True for a plain object (not null, not an array): the shape every parser of untrusted input checks first. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
