import { Logger } from '@nestjs/common';
import type { Clock } from '../../../common/clock.js';
import { ConfigError } from '../../../config/config.error.js';
import type { RampartConfig } from '../../../config/config.types.js';
import { AppRegistry } from './app-registry.js';
import { loadAppsFile } from './apps-file.js';

/** Builds the AppRegistry from APPS_FILE at boot; a bad file stops the boot with every problem listed. */
export function createAppRegistry(config: RampartConfig, clock: Clock): AppRegistry {
  const logger = new Logger('Signature');
  if (!config.appsFile) {
    logger.warn(
      'no APPS_FILE: no API client apps are registered, so every signed request is refused (unknown_app)',
    );
    return new AppRegistry(clock);
  }
  const { apps, problems } = loadAppsFile(config.appsFile, clock.now());
  if (problems.length > 0) throw new ConfigError(problems);
  logger.log(`${apps.length} API client app(s) loaded from APPS_FILE`);
  return new AppRegistry(clock, apps);
}
