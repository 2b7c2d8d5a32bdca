import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { ChatRole } from '../openai.types.js';

export const CHAT_ROLES: readonly ChatRole[] = ['system', 'user', 'assistant', 'tool'];
/** Longest accepted message content, in characters. */
export const MAX_CONTENT_CHARS = 32_768;

/** One message of an OpenAI-style chat (text content only). */
export class ChatMessageDto {
  @ApiProperty({ enum: CHAT_ROLES })
  @IsIn(CHAT_ROLES)
  role!: ChatRole;

  @ApiProperty({ maxLength: MAX_CONTENT_CHARS })
  @IsString()
  @MaxLength(MAX_CONTENT_CHARS)
  content!: string;

  @ApiPropertyOptional({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, {
    message: 'name must be 1-64 characters of letters, digits, _ or -',
  })
  name?: string;

  @ApiPropertyOptional({ description: 'For role "tool": the id of the tool call answered.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  tool_call_id?: string;
}
