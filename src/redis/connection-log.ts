import type { Logger } from '@nestjs/common';
import type { RedisClient } from './redis.client.js';

/**
 * Logs the connection's transitions: during an outage ioredis reports an error per reconnect attempt, so
 * the first error and the return are logged, not every attempt. `onReady` runs at each (re)connect.
 */
export function logTransitions(client: RedisClient, logger: Logger, onReady: () => void): void {
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) logger.warn(`redis error: ${err.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.log('redis connection is back');
    down = false;
    onReady();
  });
}
