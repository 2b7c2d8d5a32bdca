import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { LockSlice } from '../../config/policy.types.js';

/** Body of `PUT /admin/policies/:policy`: the whole policy. */
export class PolicyDto {
  @ApiPropertyOptional({ maxLength: 300 })
  @IsOptional()
  @IsString()
  @MaxLength(300)
  description?: string;

  @ApiPropertyOptional({ description: 'Critical routes are exempt from global load shedding' })
  @IsOptional()
  @IsBoolean()
  critical?: boolean;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object' },
    example: { signature: { mode: 'enforce' }, rateLimit: { mode: 'shadow' } },
    description:
      'One slice per lock (`mode` plus the lock’s own options); each installed lock validates its slice',
  })
  @IsObject()
  locks!: Record<string, LockSlice>;
}
