import type { Logger } from '@nestjs/common';
import type { RedisClient } from './redis.client.js';
import { RedisScriptError, isUnavailable } from './redis.errors.js';
import type { LuaScript } from './lua-scripts.js';

/**
 * SCRIPT LOAD of every script on every master, so the first calls are EVALSHA and a broken script stops
 * the boot, named. A script Redis could not take for availability reasons loads on first use instead.
 * Returns true when every script reached every master.
 */
export async function preloadScripts(
  client: RedisClient,
  scripts: Iterable<LuaScript>,
  logger: Logger,
): Promise<boolean> {
  const nodes = 'nodes' in client ? client.nodes('master') : [client];
  let all = true;
  for (const s of scripts) {
    try {
      await Promise.all(nodes.map((n) => n.script('LOAD', s.source)));
    } catch (err) {
      if (isUnavailable(err)) {
        logger.warn(
          `could not preload lua/${s.name}.lua (${(err as Error).message}); it loads on first use`,
        );
        all = false;
        continue;
      }
      throw new RedisScriptError(s.name, (err as Error).message);
    }
  }
  return all && nodes.length > 0;
}
