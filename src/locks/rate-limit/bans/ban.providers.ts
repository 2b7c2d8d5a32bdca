import type { Provider } from '@nestjs/common';
import { BanAdmin } from './ban-admin.js';
import { BanCheck } from './ban-check.js';
import { BanTable } from './ban-table.js';
import { RATE_LIMIT_BANS } from './ban.types.js';

/** Bans (docs/rate-limit.md#bans): the in-memory table, the request-path check, the admin port. */
export const BAN_PROVIDERS: Provider[] = [
  { provide: BanTable, useFactory: () => new BanTable() },
  BanCheck,
  BanAdmin,
  { provide: RATE_LIMIT_BANS, useExisting: BanAdmin },
];
