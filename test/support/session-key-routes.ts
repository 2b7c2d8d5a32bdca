/** A route, policy and apps file for the session key tests (signature + a per-user rate limit). */
import { Controller, Get, Module, Req } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Protect } from '../../src/chain/protect.decorator.js';
import type { RampartConfig } from '../../src/config/config.types.js';
import { AnyRequest, requestState } from '../../src/http/http-context.js';

@Controller('sk-test')
class SessionKeyTestController {
  @Get('user')
  @Protect('sk-user')
  user(@Req() req: AnyRequest): { app: string | null; user: string | null } {
    const s = requestState(req);
    return { app: s.appId ?? null, user: s.userId ?? null };
  }
}

@Module({ controllers: [SessionKeyTestController] })
export class SessionKeyRoutesModule {}

/** Policy `sk-user`: signature required, 2 requests per user (X-User-Id honoured for app-signed requests). */
export function withSessionKeyPolicy(c: RampartConfig): RampartConfig {
  return {
    ...c,
    sections: { ...c.sections, rateLimit: { userHeader: 'x-user-id' } },
    policies: {
      ...c.policies,
      'sk-user': {
        locks: {
          signature: { mode: 'enforce', signed: 'required' },
          rateLimit: {
            mode: 'enforce',
            failMode: 'local',
            rules: [{ name: 'per-user', dimension: 'user', capacity: 2, rate: '1/h' }],
          },
        },
      },
    },
  };
}

/** Two apps with session keys (fresh secrets), written to a temporary APPS_FILE. */
export function sessionKeyApps(): { file: string; web: string; other: string } {
  const web = randomBytes(32).toString('base64url');
  const other = randomBytes(32).toString('base64url');
  const sessionKeys = { maxTtl: '5m', maxScope: ['sk-user', 'inference', 'search'] };
  const dir = mkdtempSync(join(tmpdir(), 'rampart-sk-'));
  const file = join(dir, 'apps.yaml');
  writeFileSync(
    file,
    stringify({
      apps: [
        { id: 'sk-web', tier: 'free', secrets: [{ id: 'k1', secret: web }], sessionKeys },
        { id: 'sk-other', tier: 'free', secrets: [{ id: 'k1', secret: other }], sessionKeys },
      ],
    }),
  );
  return { file, web, other };
}
