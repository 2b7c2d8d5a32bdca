import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { LOCK_MODES, LockMode } from '../../config/policy.types.js';
import { ISO_TIME_WITH_ZONE } from './iso-time.js';

/** Body of `PATCH /admin/policies/:policy/locks/:lock`. */
export class LockModeDto {
  @ApiProperty({
    enum: LOCK_MODES,
    description:
      '`enforce` rejects, `shadow` only records what it would reject, `off` does not run',
  })
  @IsIn(LOCK_MODES)
  mode!: LockMode;

  @ApiPropertyOptional({
    example: '2030-01-31T12:00:00Z',
    description:
      'Time-boxed override: the mode applies until this ISO time (with zone), then the permanent mode applies again by itself. Absent = permanent change.',
  })
  @IsOptional()
  @Matches(ISO_TIME_WITH_ZONE, {
    message: 'until must be an ISO 8601 time with a zone, e.g. 2030-01-31T12:00:00Z',
  })
  until?: string;
}
