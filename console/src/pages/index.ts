import type { FunctionComponent } from 'preact';
import { NAV } from '../lib/nav.js';
import { Apps } from './apps.js';
import { Audit } from './audit.js';
import { Bans } from './bans.js';
import { Bloom } from './bloom.js';
import { Bots } from './bots.js';
import { Breakers } from './breakers.js';
import { DeadLetters } from './dead-letters.js';
import { Overview } from './overview.js';
import { Queues } from './queues.js';
import { RateLimits } from './rate-limits.js';
import { Routes } from './routes.js';
import { Soon } from './soon.js';
import { Usage } from './usage.js';
import { Versions } from './versions.js';

/** Page id (lib/nav.ts) → component; entries marked `soon` show what is coming. */
export const PAGES: Record<string, FunctionComponent> = {
  overview: Overview,
  routes: Routes,
  'rate-limits': RateLimits,
  bloom: Bloom,
  breakers: Breakers,
  apps: Apps,
  bans: Bans,
  usage: Usage,
  versions: Versions,
  audit: Audit,
  bots: Bots,
  queues: Queues,
  'dead-letters': DeadLetters,
  ...Object.fromEntries(NAV.filter((e) => e.soon).map((e) => [e.id, Soon])),
};
