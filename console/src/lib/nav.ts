/**
 * The console's navigation, as data. A page is one entry; entries with
 * `soon` are shown disabled until their feature exists — adding a page is
 * adding an entry here and a component in pages/index.ts.
 */
export interface NavEntry {
  id: string;
  label: string;
  group: string;
  /** Why it is not there yet (shown disabled). */
  soon?: string;
}

export const NAV: readonly NavEntry[] = [
  { id: 'overview', label: 'Overview', group: 'Traffic' },
  { id: 'routes', label: 'Routes × locks', group: 'Locks' },
  { id: 'rate-limits', label: 'Rate limits', group: 'Locks' },
  { id: 'bloom', label: 'Bloom filters', group: 'Locks' },
  { id: 'breakers', label: 'Breakers', group: 'Locks' },
  { id: 'apps', label: 'Apps', group: 'Clients' },
  { id: 'bans', label: 'Bans', group: 'Clients' },
  { id: 'usage', label: 'Usage', group: 'Clients' },
  { id: 'versions', label: 'Versions', group: 'Changes' },
  { id: 'audit', label: 'Audit log', group: 'Changes' },
  { id: 'bots', label: 'Bots', group: 'Telegram' },
  { id: 'queues', label: 'Queues', group: 'Telegram' },
  { id: 'dead-letters', label: 'Dead letters', group: 'Telegram' },
];

export const DEFAULT_PAGE = 'overview';

/** The page id of a location hash (`#/bloom` → `bloom`); unknown → the overview. */
export function pageOf(hash: string): string {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return NAV.some((e) => e.id === id) ? id : DEFAULT_PAGE;
}

/** Entries grouped in order of first appearance. */
export function navGroups(): { group: string; entries: NavEntry[] }[] {
  const groups: { group: string; entries: NavEntry[] }[] = [];
  for (const e of NAV) {
    const g = groups.find((x) => x.group === e.group);
    if (g) g.entries.push(e);
    else groups.push({ group: e.group, entries: [e] });
  }
  return groups;
}
