import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import { ModuleRef } from '@nestjs/core';
import { type AnyReply, type AnyRequest, requestState } from '../http/http-context.js';
import { findRiskSink, type RiskSink } from '../locks/rate-limit/extensions/risk-sink.js';
import { ChatCompletionRequestDto } from './dto/chat-completion-request.dto.js';
import { InferenceService } from './inference.service.js';
import type { ChatCompletion } from './openai.types.js';

const STREAM_NOTE = '`stream: true` answers with server-sent events';

/**
 * Chat completions from the local demo model or the configured upstream,
 * behind `@Protect('inference')`: `POST /v1/chat/completions` (where the
 * official OpenAI SDKs post; OpenAI-style error bodies) and its older alias
 * `POST /v1/inference` (plain problem+json errors).
 */
@ApiTags('inference')
@Controller('v1')
export class InferenceController {
  constructor(
    private readonly inference: InferenceService,
    private readonly moduleRef: ModuleRef,
  ) {}

  private sink: RiskSink | null | undefined = null;

  /** The same messages again from one subject within the window are a risk signal (docs/quotas.md#signals). */
  private observe(body: ChatCompletionRequestDto, req: AnyRequest): void {
    if (this.sink === null) this.sink = findRiskSink(this.moduleRef);
    const state = requestState(req);
    this.sink?.payload({ req, state, route: state.route ?? '' }, JSON.stringify(body.messages));
  }

  /** OpenAI chat completions, where the official SDKs call it (`baseURL: <rampart>/v1`). */
  @Post('chat/completions')
  @HttpCode(200)
  @Protect('inference')
  @ApiOperation({
    summary: `Chat completion, OpenAI-compatible (official SDKs: baseURL <rampart>/v1); ${STREAM_NOTE}; errors carry OpenAI's error object`,
  })
  chatCompletions(
    @Body() body: ChatCompletionRequestDto,
    @Req() req: AnyRequest,
    @Res({ passthrough: true }) reply: AnyReply,
  ): Promise<ChatCompletion | undefined> {
    this.observe(body, req);
    return this.inference.handle(body, req, reply);
  }

  /** The same as `POST /v1/chat/completions`, answering errors as plain problem+json. */
  @Post('inference')
  @HttpCode(200)
  @Protect('inference')
  @ApiOperation({
    summary: `Chat completion (OpenAI chat-completions body), alias of /v1/chat/completions with problem+json errors; ${STREAM_NOTE}`,
  })
  complete(
    @Body() body: ChatCompletionRequestDto,
    @Req() req: AnyRequest,
    @Res({ passthrough: true }) reply: AnyReply,
  ): Promise<ChatCompletion | undefined> {
    this.observe(body, req);
    return this.inference.handle(body, req, reply);
  }
}
