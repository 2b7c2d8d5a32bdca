import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import type { AnyReply, AnyRequest } from '../http/http-context.js';
import { ChatCompletionRequestDto } from './dto/chat-completion-request.dto.js';
import { InferenceService } from './inference.service.js';
import type { ChatCompletion } from './openai.types.js';

@ApiTags('inference')
@Controller('v1')
export class InferenceController {
  constructor(private readonly inference: InferenceService) {}

  /** OpenAI-style chat completion, from the local demo model or the configured upstream. */
  @Post('inference')
  @HttpCode(200)
  @Protect('inference')
  @ApiOperation({
    summary:
      'Chat completion (OpenAI chat-completions body); `stream: true` answers with server-sent events',
  })
  complete(
    @Body() body: ChatCompletionRequestDto,
    @Req() req: AnyRequest,
    @Res({ passthrough: true }) reply: AnyReply,
  ): Promise<ChatCompletion | undefined> {
    return this.inference.handle(body, req, reply);
  }
}
