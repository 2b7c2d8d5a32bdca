import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Protect } from '../../chain/protect.decorator.js';
import type { AnyReply, AnyRequest } from '../../http/http-context.js';
import { InferenceService } from '../inference.service.js';
import type { ModelList } from '../openai.types.js';

/** `GET /v1/models` behind `@Protect('models')`: the models inference offers (OpenAI's list). */
@ApiTags('inference')
@Controller('v1')
export class ModelsController {
  constructor(private readonly inference: InferenceService) {}

  /** The upstream's models (proxied; cached by the cache shield), or the demo model. */
  @Get('models')
  @Protect('models')
  @ApiOperation({
    summary:
      "The models chat completions offer (OpenAI's model list): the upstream's, cached briefly, or the demo model",
  })
  list(@Req() req: AnyRequest, @Res({ passthrough: true }) reply: AnyReply): Promise<ModelList> {
    return this.inference.models(req, reply);
  }
}
