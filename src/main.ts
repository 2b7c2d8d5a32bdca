import { createApp } from './app.factory.js';
import { ConfigError } from './config/config.error.js';
import { loadAppConfig } from './app.config.js';
import { printableConfig } from './config/mask.js';
import { createPino } from './logging/logger.js';

let config;
try {
  config = loadAppConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw err;
}

const log = createPino(config.logLevel);
log.info({ config: printableConfig(config) }, 'configuration loaded');
try {
  const app = await createApp(config, { logger: log });
  await app.listen(config.port, config.host);
  log.info(
    `rampart listening on http://${config.host}:${config.port} (${config.httpAdapter}); docs at /docs`,
  );
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  log.fatal({ err }, 'boot failed');
  log.flush();
  process.exit(1);
}
