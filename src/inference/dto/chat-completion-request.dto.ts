import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ChatMessageDto } from './chat-message.dto.js';
import { HasUserMessage, IsStopSequences } from './chat-validators.js';

/** `max_tokens` when a request sets none: sent upstream, and what a token budget reserves for the answer. */
export const DEFAULT_MAX_TOKENS = 256;

export class StreamOptionsDto {
  @ApiPropertyOptional({ description: 'Send a last chunk with token usage before [DONE].' })
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

/**
 * Body of `POST /v1/inference`: the OpenAI chat-completions request, text
 * only. Fields not declared here are dropped (whitelist) and never reach an
 * upstream.
 */
export class ChatCompletionRequestDto {
  @ApiProperty({ example: 'gpt-4o-mini', minLength: 1, maxLength: 128 })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  model!: string;

  @ApiProperty({ type: [ChatMessageDto], minItems: 1, maxItems: 64 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(64)
  @HasUserMessage()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

  @ApiPropertyOptional({
    description: 'Most tokens to generate.',
    minimum: 1,
    maximum: 8192,
    default: DEFAULT_MAX_TOKENS,
  })
  @IsInt()
  @Min(1)
  @Max(8192)
  max_tokens: number = DEFAULT_MAX_TOKENS;

  @ApiPropertyOptional({
    description: 'Answer as server-sent events of chat.completion.chunk objects.',
    default: false,
  })
  @IsBoolean()
  stream: boolean = false;

  @ApiPropertyOptional({ type: StreamOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @ApiPropertyOptional({ minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  top_p?: number;

  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-2)
  @Max(2)
  presence_penalty?: number;

  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-2)
  @Max(2)
  frequency_penalty?: number;

  @ApiPropertyOptional({
    description: 'Stop sequence(s): a string or up to 4 strings.',
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  })
  @IsOptional()
  @IsStopSequences()
  stop?: string | string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  seed?: number;

  @ApiPropertyOptional({
    description: "The caller's end-user id, passed on to the upstream.",
    maxLength: 256,
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  user?: string;
}
