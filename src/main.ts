import { createApp } from './app.factory.js';
import { ConfigError } from './config/config.error.js';
import { loadAppConfig } from './app.config.js';
import { printableConfig } from './config/mask.js';
import { drainOnSignals } from './health/drain.js';
import { createPino } from './logging/logger.js';
import { startupSummary, summaryInput } from './startup-summary.js';

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
log.debug({ config: printableConfig(config) }, 'configuration loaded');
try {
  const app = await createApp(config, { logger: log });
  await app.listen(config.port, config.host);
  drainOnSignals(app, config.shutdown, {
    info: (m) => log.info(m),
    warn: (m) => log.warn(m),
  });
  // The last lines of the start-up log: a short summary for people (one line each, so that
  // JSON log readers show them as they are); the full configuration is at debug level.
  for (const line of startupSummary(summaryInput(app, config))) log.info({ summary: true }, line);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  log.fatal({ err }, 'boot failed');
  log.flush();
  process.exit(1);
}
