/** The value of one series of a /metrics text whose labels include `labels` (undefined when absent). */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string>,
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const body = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
