import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { HealthRegistry } from '../../health/health-registry.service.js';
import { TelegramBots } from '../telegram-bots.js';
import { SEND_GATE_STORE, type SendGateStore } from './gate/send-gate.store.js';
import { OutboundWorkers } from './outbound-workers.service.js';

/**
 * `/health/ready` check `telegram-outbound` (optional: degraded, never down):
 * a bot revoked, or in a cooldown of at least `longCooldownMs`, makes it
 * degraded with the bot named; else it lists each bot's state.
 */
@Injectable()
export class OutboundHealth implements OnApplicationBootstrap {
  constructor(
    private readonly bots: TelegramBots,
    @Inject(SEND_GATE_STORE) private readonly gate: SendGateStore,
    private readonly health: HealthRegistry,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly workers: OutboundWorkers,
  ) {}

  onApplicationBootstrap(): void {
    if (this.bots.all().length === 0) return;
    this.health.register('telegram-outbound', () => this.report(), { optional: true });
  }

  async report(): Promise<Record<string, unknown>> {
    const now = this.clock.now();
    const long = this.bots.settings.outbound.longCooldownMs;
    const troubled: string[] = [];
    const bots: Record<string, unknown> = {};
    for (const b of this.bots.all()) {
      const s = await this.gate.status(b.id);
      const h = this.workers.health.view(b.id);
      bots[b.id] = { state: s.state, until: s.until && new Date(s.until).toISOString(), ...h };
      if (h.health !== 'up')
        troubled.push(`${b.id}: out of rotation (${h.consecutive_failures} failures in a row)`);
      if (s.state === 'revoked') troubled.push(`${b.id}: revoked (token refused)`);
      else if (s.state === 'cooldown' && (s.until ?? 0) - now >= long)
        troubled.push(`${b.id}: cooldown for ${Math.ceil(((s.until ?? 0) - now) / 1000)} s`);
    }
    if (troubled.length > 0) throw new Error(`telegram outbound degraded: ${troubled.join('; ')}`);
    return { bots };
  }
}
