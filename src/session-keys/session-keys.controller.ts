import { Body, Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiBody, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { ProblemException } from '../common/problem.exception.js';
import { AnyRequest, requestState } from '../http/http-context.js';
import { AppRegistry } from '../locks/signature/apps/app-registry.js';
import {
  type SessionKey,
  mintSessionKey,
} from '../locks/signature/session-keys/session-key-mint.js';

/** The answer of POST /v1/session-keys (times as seconds since the epoch). */
export type SessionKeyAnswer = SessionKey;

/**
 * Mints short-lived session keys for an app's signed-in users. The request
 * must be signed with the app's own (long-lived) secret: a session key can
 * never mint another one (its scope cannot include this policy, and it is
 * checked again here).
 */
@ApiTags('session-keys')
@Controller('v1')
export class SessionKeysController {
  private apps: AppRegistry | undefined;

  constructor(private readonly moduleRef: ModuleRef) {}

  @Post('session-keys')
  @HttpCode(201)
  @Header('Cache-Control', 'no-store')
  @Protect('session-keys')
  @ApiBody({
    schema: { example: { user: 'user-42', ttl: '10m', scope: ['search', 'inference'] } },
  })
  @ApiOkResponse({ description: 'The key id and its secret (hand them to the browser)' })
  mint(@Req() req: AnyRequest, @Body() body: unknown): SessionKeyAnswer {
    const s = requestState(req);
    const app = s.appId && !s.sessionKey ? this.registry().get(s.appId) : undefined;
    if (!app)
      throw new ProblemException(403, 'app_signature_required', 'Sign with the app secret', {
        detail: "minting a session key needs a request signed with the app's own secret",
      });
    const clock = this.moduleRef.get<Clock>(CLOCK, { strict: false });
    const r = mintSessionKey(app, body, clock.now());
    if ('problems' in r)
      throw new ProblemException(400, 'validation_failed', 'Request failed validation', {
        detail: r.problems.join('; '),
        problems: r.problems,
      });
    return r.key;
  }

  private registry(): AppRegistry {
    try {
      this.apps ??= this.moduleRef.get(AppRegistry, { strict: false });
      if (this.apps) return this.apps;
    } catch {
      // not installed: answered below
    }
    throw new ProblemException(404, 'lock_not_installed', 'Lock not installed', {
      detail: 'The signature lock is not installed in this service',
      lock: 'signature',
    });
  }
}
