/**
 * Routes, policies and an apps file for the signature tests: each route is
 * protected by a test policy that turns on the signature lock only, so the
 * tests do not depend on the shipped routes or on other locks.
 */
import { Controller, Get, Headers, HttpCode, Module, Param, Post, Req } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Protect } from '../../src/chain/protect.decorator.js';
import type { RoutePolicy } from '../../src/config/policy.types.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { AnyRequest, rawBody, requestState } from '../../src/http/http-context.js';
import type { SignatureSlice } from '../../src/locks/signature/signature.types.js';

export interface Echo {
  app: string | null;
  tier: string | null;
  bodySha256: string;
  bodyLength: number;
  contentType: string | null;
  id?: string;
}

function echo(req: AnyRequest, contentType?: string): Echo {
  const s = requestState(req);
  const body = rawBody(req);
  return {
    app: s.appId ?? null,
    tier: s.tier ?? null,
    bodySha256: createHash('sha256').update(body).digest('hex'),
    bodyLength: body.length,
    contentType: contentType ?? null,
  };
}

@Controller('sig-test')
class SignatureTestController {
  @Post('echo')
  @HttpCode(200)
  @Protect('sig-required')
  required(@Req() req: AnyRequest, @Headers('content-type') ct?: string): Echo {
    return echo(req, ct);
  }

  @Get('items/:id')
  @Protect('sig-required')
  item(@Req() req: AnyRequest, @Param('id') id: string): Echo {
    return { ...echo(req), id };
  }

  @Post('optional')
  @HttpCode(200)
  @Protect('sig-optional')
  optional(@Req() req: AnyRequest): Echo {
    return echo(req);
  }

  @Post('shadow')
  @HttpCode(200)
  @Protect('sig-shadow')
  shadow(@Req() req: AnyRequest): Echo {
    return echo(req);
  }

  /** Not protected: what the HTTP layer kept of the body. */
  @Post('raw')
  @HttpCode(200)
  raw(@Req() req: AnyRequest, @Headers('content-type') ct?: string): Echo {
    return echo(req, ct);
  }
}

@Module({ controllers: [SignatureTestController] })
export class SignatureRoutesModule {}

const only = (slice: SignatureSlice): RoutePolicy => ({ locks: { signature: slice } });

/** Adds the test policies (signature lock only) and optional `signature:` settings to a loaded config. */
export function withSignaturePolicies(
  sections: Record<string, unknown> = {},
): (c: RampartConfig) => RampartConfig {
  return (c) => ({
    ...c,
    sections: { ...c.sections, ...sections },
    policies: {
      ...c.policies,
      'sig-required': only({ mode: 'enforce', signed: 'required' }),
      'sig-optional': only({ mode: 'enforce', signed: 'optional' }),
      'sig-shadow': only({ mode: 'shadow', signed: 'required' }),
    },
  });
}

/** Turns every lock but the signature lock off in every policy (for apps started with `locks: [SignatureModule]`). */
export function signatureOnly(c: RampartConfig): RampartConfig {
  const policies = Object.fromEntries(
    Object.entries(c.policies).map(([name, p]) => [
      name,
      {
        ...p,
        locks: Object.fromEntries(
          Object.entries(p.locks).map(([lock, slice]) => [
            lock,
            lock === 'signature' ? slice : { mode: 'off' as const },
          ]),
        ),
      },
    ]),
  );
  return { ...c, policies };
}

const secret = (): string => randomBytes(32).toString('base64url');

/** Freshly generated test apps (never a committed secret). */
export function testApps(): {
  file: string;
  main: { appId: string; tier: string; secrets: string[]; retired: string };
  debug: { appId: string; secret: string };
  inactive: { appId: string; secret: string };
} {
  const main = { appId: 'app-e2e', tier: 'pro', secrets: [secret(), secret()], retired: secret() };
  const debug = { appId: 'app-debug', secret: secret() };
  const inactive = { appId: 'app-off', secret: secret() };
  const doc = {
    apps: [
      {
        id: main.appId,
        tier: main.tier,
        secrets: [
          {
            id: 'old',
            secret: main.retired,
            notAfter: new Date(Date.now() - 60_000).toISOString(),
          },
          { id: 'k1', secret: main.secrets[0] },
          { id: 'k2', secret: main.secrets[1] },
        ],
      },
      { id: debug.appId, tier: 'free', debug: true, secrets: [{ id: 'k1', secret: debug.secret }] },
      {
        id: inactive.appId,
        tier: 'free',
        active: false,
        secrets: [{ id: 'k1', secret: inactive.secret }],
      },
    ],
  };
  const file = join(mkdtempSync(join(tmpdir(), 'rampart-sig-')), 'apps.yaml');
  writeFileSync(file, stringify(doc));
  return { file, main, debug, inactive };
}
