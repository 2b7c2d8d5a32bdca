import { Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOperation } from '@nestjs/swagger';
import type { ClientAppView } from '../../locks/signature/apps/app.types.js';
import { AdminBody, AdminController } from '../admin-route.decorator.js';
import { AppsAdmin, OneTimeSecret } from '../apps/apps-admin.service.js';
import { AdminActor } from '../auth/admin-actor.js';
import { CreateAppDto, RetireSecretDto } from '../dto/app.dto.js';
import { futureInstant } from '../dto/iso-time.js';

type WithSecret = { app: ClientAppView; secret: OneTimeSecret };

/** API client apps of the signature lock (404 `lock_not_installed` without it). Secrets appear once, when created. */
@AdminController('apps')
export class AdminAppsController {
  constructor(private readonly apps: AppsAdmin) {}

  @Get()
  @ApiOperation({ summary: 'Every app with its secret ids and their state (never secret values)' })
  list(): { apps: ClientAppView[] } {
    return { apps: this.apps.list() };
  }

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Creates an app with a server-generated secret, shown ONCE in this answer',
  })
  @ApiBody({ type: CreateAppDto })
  @ApiCreatedResponse({ description: '`secret.value` is shown only here; store it now' })
  create(@AdminActor() actor: string, @AdminBody() body: CreateAppDto): Promise<WithSecret> {
    return this.apps.create(actor, body);
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deactivates an app: its requests are refused like an unknown app’s' })
  deactivate(@AdminActor() actor: string, @Param('id') id: string): Promise<ClientAppView> {
    return this.apps.setActive(actor, id, false);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activates a deactivated app again' })
  activate(@AdminActor() actor: string, @Param('id') id: string): Promise<ClientAppView> {
    return this.apps.setActive(actor, id, true);
  }

  @Post(':id/secrets')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary:
      'Rotates: adds a new server-generated secret, shown ONCE; older secrets work until retired',
  })
  @ApiCreatedResponse({ description: '`secret.value` is shown only here; store it now' })
  rotate(@AdminActor() actor: string, @Param('id') id: string): Promise<WithSecret> {
    return this.apps.rotate(actor, id);
  }

  @Post(':id/secrets/:secretId/retire')
  @HttpCode(200)
  @ApiOperation({ summary: 'Retires a secret: now (deleted), or at `notAfter`' })
  @ApiBody({ type: RetireSecretDto, required: false })
  retire(
    @AdminActor() actor: string,
    @Param('id') id: string,
    @Param('secretId') secretId: string,
    @AdminBody() body: RetireSecretDto,
  ): Promise<ClientAppView> {
    const notAfter =
      body.notAfter === undefined ? undefined : futureInstant(body.notAfter, 'notAfter');
    return this.apps.retire(actor, id, secretId, notAfter);
  }
}
