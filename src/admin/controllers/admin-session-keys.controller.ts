import { HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import type { ClientAppView } from '../../locks/signature/apps/app.types.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { DenySessionKeyDto } from '../dto/app.dto.js';
import { DeniedKey, SessionKeysAdmin } from '../apps/session-keys-admin.service.js';
import { AdminActor } from '../auth/admin-actor.js';

/** Revocation of an app's browser session keys (docs/session-keys.md). */
@AdminController('apps')
export class AdminSessionKeysController {
  constructor(private readonly keys: SessionKeysAdmin) {}

  @Post(':id/session-keys/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Revokes every session key of the app issued until now (moves its epoch); new keys work from the next second',
  })
  revokeAll(@AdminActor() actor: string, @Param('id') id: string): Promise<ClientAppView> {
    return this.keys.revokeAll(actor, id);
  }

  @Post(':id/session-keys/deny')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revokes one session key (deny set entry until the key expires)' })
  @ApiBody({
    schema: {
      example: { keyId: 'sk1.acme-web.dXNlci00Mg.1764460800.1764461700.search+inference.Q2x…' },
    },
  })
  deny(
    @AdminActor() actor: string,
    @Param('id') id: string,
    @AdminBody() body: DenySessionKeyDto,
  ): Promise<DeniedKey> {
    return this.keys.deny(actor, id, body.keyId);
  }
}
