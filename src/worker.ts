import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadAppConfig } from './app.config.js';
import { ConfigError } from './config/config.error.js';
import { PinoNestLogger, createPino, stdoutLogOutput } from './logging/logger.js';
import { redisMode } from './redis/redis.client.js';
import { OutboundWorkers } from './telegram/outbound/outbound-workers.service.js';
import { OutboundWorkerModule } from './telegram/outbound/worker.module.js';

/**
 * `npm run worker`: a process that only sends Telegram notifications, from
 * the same CONFIG_FILE and Redis as the service (without Redis it would have
 * a queue of its own, so it refuses to start). SIGTERM / SIGINT: stop
 * claiming, let the sends in flight settle, exit.
 */
let config;
try {
  config = loadAppConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  throw err;
}
const output = stdoutLogOutput(config.logFormat);
const log = createPino(config.logLevel, undefined, output);
if (redisMode(config.redis) === 'none') {
  process.stderr.write(
    'npm run worker needs Redis (REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS): a memory queue is per process\n',
  );
  process.exit(78);
}
const app = await NestFactory.createApplicationContext(OutboundWorkerModule.forRoot(config), {
  logger: new PinoNestLogger(log),
});
app.get(OutboundWorkers).start();
log.info('telegram outbound worker started');
let stopping = false;
for (const sig of ['SIGTERM', 'SIGINT'] as const)
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    log.info(`${sig}: stopping after the sends in flight`);
    void app.close().then(() => process.exit(0));
  });
