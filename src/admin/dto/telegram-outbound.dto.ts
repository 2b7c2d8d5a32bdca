import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ISO_TIME_WITH_ZONE } from './iso-time.js';

/** Body of `PUT /admin/telegram/bots/:id/state`. */
export class BotStateDto {
  @ApiProperty({ enum: ['active', 'cooldown', 'disabled', 'revoked'] })
  @IsIn(['active', 'cooldown', 'disabled', 'revoked'])
  state!: 'active' | 'cooldown' | 'disabled' | 'revoked';

  @ApiPropertyOptional({
    description: 'End of the cooldown (ISO time with zone); required for cooldown',
  })
  @IsOptional()
  @Matches(ISO_TIME_WITH_ZONE, { message: 'until must be an ISO time with a zone' })
  until?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  reason?: string;
}

/** Body of `POST /admin/telegram/bots/:id/rotate`. */
export class RotateDto {
  @ApiPropertyOptional({ description: 'Milliseconds to wait for sends in flight (default 15000)' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(120_000)
  drainMs?: number;
}

/** Body of `POST /admin/telegram/dead/replay`. */
export class ReplayDto {
  @ApiProperty({
    type: [String],
    description:
      'The `ref` of each dead job to queue again (`<app>/<job_id>`, as GET /admin/telegram/dead lists it); others are left alone',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  job_ids!: string[];
}
