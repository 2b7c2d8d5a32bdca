import { Controller, Get, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import { AnyRequest, requestState } from '../http/http-context.js';

/** Small endpoints for API clients: the server clock (for signing) and "who am I" (to test a signature). */
@ApiTags('probe')
@Controller('v1')
export class ProbeController {
  /** Server time in milliseconds since the Unix epoch: compare it with your clock before signing. Unprotected. */
  @Get('time')
  @ApiOkResponse({ description: 'Server time', schema: { example: { now: 1764460800000 } } })
  time(): { now: number } {
    return { now: Date.now() };
  }

  /** The identity the locks gave this request (app and tier after a verified signature). */
  @Get('whoami')
  @Protect('whoami')
  @ApiOkResponse({
    description: 'Identity as seen by the locks',
    schema: { example: { app: 'demo-app', tier: 'free' } },
  })
  whoami(@Req() req: AnyRequest): { app: string | null; tier: string | null } {
    const s = requestState(req);
    return { app: s.appId ?? null, tier: s.tier ?? null };
  }
}
