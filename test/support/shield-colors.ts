/**
 * A product the cache shield has never heard of: `GET /test/colors/:name`
 * over an in-memory list, plugged into the shield only through its
 * extension points (a key source `color`, a filter `test-colors`), the way
 * any product would. Proves the shield needs no code of its own for a route.
 */
import { Controller, Get, Module, Param } from '@nestjs/common';
import { Protect } from '../../src/chain/protect.decorator.js';
import { ProblemException } from '../../src/common/problem.exception.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import type { AnyRequest } from '../../src/http/http-context.js';
import { CacheShieldModule } from '../../src/locks/cache-shield/cache-shield.module.js';
import {
  SHIELD_HEADER,
  SKIP,
  type KeySource,
} from '../../src/locks/cache-shield/cache-shield.key-source.js';

export const COLORS: Record<string, string> = { red: '#ff0000', teal: '#008080', navy: '#000080' };
export const COLORS_FILTER = 'test-colors';

/** Names the handler was called with, in order. */
export const handled: string[] = [];

let gate: Promise<void> | undefined;
let openGate: (() => void) | undefined;

/** Holds every build of the colors filter until {@link releaseColorsBuild} (a filter that takes its time). */
export function holdColorsBuild(): void {
  gate = new Promise((resolve) => (openGate = resolve));
}

export function releaseColorsBuild(): void {
  openGate?.();
  gate = undefined;
}

function colorNotFound(headers: Record<string, string> = {}): ProblemException {
  return ProblemException.fast(404, 'color_not_found', 'No such color', { headers });
}

/** Key source `color`: the `:name` route parameter, looked up as is. */
export const colorKeys: KeySource<string> = {
  filters: [COLORS_FILTER],
  read(req: AnyRequest) {
    const name = (req as { params?: Record<string, unknown> }).params?.name;
    return typeof name === 'string' && name !== ''
      ? { request: { filter: COLORS_FILTER, keys: [name], cacheKey: name, allowKey: name } }
      : SKIP;
  },
  accept: (r) => r.cacheKey,
  absent(_name: string, header: string): never {
    throw colorNotFound({ [SHIELD_HEADER]: header }).asAnswer();
  },
  found: (_name, body) => body,
  isEmpty: () => false,
  isEmptyError: (err) => err instanceof ProblemException && err.problem.error === 'color_not_found',
};

@Controller('test/colors')
class ColorsController {
  @Get(':name')
  @Protect('colors')
  color(@Param('name') name: string): { name: string; hex: string } {
    handled.push(name);
    const hex = COLORS[name];
    if (!hex) throw colorNotFound();
    return { name, hex };
  }
}

@Module({
  imports: [
    CacheShieldModule.forFeature({
      keySources: { color: colorKeys },
      filters: [
        {
          name: COLORS_FILTER,
          source: 'memory:colors',
          async *keys() {
            await gate;
            yield* Object.keys(COLORS);
          },
        },
      ],
    }),
  ],
  controllers: [ColorsController],
})
export class ColorsModule {}

/** Adds the `colors` policy: the shield alone, its key source named by `key`. */
export function withColorsPolicy(c: RampartConfig): RampartConfig {
  return {
    ...c,
    policies: {
      ...c.policies,
      colors: {
        locks: {
          cacheShield: { mode: 'enforce', key: 'color', resultTtlSeconds: 60, nullTtlSeconds: 10 },
        },
      },
    },
  };
}
