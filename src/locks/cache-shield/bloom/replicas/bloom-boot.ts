import type { Logger } from '@nestjs/common';
import { applyEvent } from './bloom-events.js';
import type { BloomFilters } from './bloom-filters.service.js';

/**
 * The filters' boot: follow the other instances' announcements (`subscribed` gets the unsubscribe as soon
 * as it exists), then load or build every registered filter. A filter that fails stays bypassed, logged.
 */
export async function bootFilters(
  filters: BloomFilters,
  logger: Logger,
  subscribed: (unsubscribe: () => void) => void,
): Promise<void> {
  try {
    subscribed(await filters.store.subscribe((e) => applyEvent(filters, e)));
  } catch (err) {
    logger.warn(
      `bloom announcements unavailable (${(err as Error).message}); relying on periodic checks`,
    );
  }
  await Promise.all(
    [...filters.replicas.keys()].map((name) =>
      filters.ensure(name).catch((err: unknown) => {
        if (!filters.closing)
          logger.error(
            `bloom ${name}: not available (${(err as Error).message}); lookups bypass it`,
          );
      }),
    ),
  );
}
