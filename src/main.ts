import { createApp } from './app.factory.js';
import { ConfigError } from './config/config.error.js';
import { loadAppConfig } from './app.config.js';
import { printableConfig } from './config/mask.js';
import { drainOnSignals } from './health/drain.js';
import { HealthRegistry } from './health/health-registry.service.js';
import { whenArmed } from './health/when-armed.js';
import { createPino, stdoutLogOutput } from './logging/logger.js';
import { logStartupSummary, startupSummary, summaryInput } from './startup-summary.js';

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

const output = stdoutLogOutput(config.logFormat);
const log = createPino(config.logLevel, undefined, output);
log.debug({ config: printableConfig(config) }, 'configuration loaded');
try {
  const app = await createApp(config, { logger: log });
  await app.listen(config.port, config.host);
  drainOnSignals(app, config.shutdown, {
    info: (m) => log.info(m),
    warn: (m) => log.warn(m),
  });
  // The end of the start-up log: a short summary for people, once the instance is armed (or
  // after 30 s, whatever is pending: /health/ready says what); the configuration is at debug level.
  await whenArmed(app.get(HealthRegistry), 30_000);
  logStartupSummary(log, startupSummary(summaryInput(app, config)), output.format);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  log.fatal({ err }, 'boot failed');
  log.flush();
  process.exit(1);
}
