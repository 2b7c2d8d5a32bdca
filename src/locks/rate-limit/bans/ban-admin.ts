import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import { addressGroup } from '../../../http/cidr.js';
import { RedisUnavailableError } from '../../../redis/redis.errors.js';
import { InjectRateLimitSettings } from '../rate-limit.settings.js';
import type { RateLimitSettings } from '../rate-limit.types.js';
import { BanCheck } from './ban-check.js';
import type { BanAdminPort, BanDimension, BanEntry } from './ban.types.js';

/** The bans' admin port: ids in clear become key parts here; the sync fills the table through it. */
@Injectable()
export class BanAdmin implements BanAdminPort {
  constructor(
    private readonly check: BanCheck,
    @InjectRateLimitSettings() private readonly settings: RateLimitSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  subjectOf(dimension: BanDimension, id: string): string {
    const hasher = this.check.hasher();
    if (!hasher)
      throw new RedisUnavailableError('bans.subject', 'the shared key secret is not known yet');
    // An address is banned with its network (IPv6: the /ipv6Prefix the limiter counts by).
    const value = dimension === 'ip' ? addressGroup(id, this.settings.ipv6Prefix) : id;
    return this.check.part(dimension, { value, personal: dimension !== 'app' }, hasher);
  }

  apply(entries: readonly BanEntry[]): void {
    this.check.table.replace(entries, this.clock.now());
  }

  held(): BanEntry[] {
    return this.check.table.list();
  }
}
