import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { ISO_TIME_WITH_ZONE } from './iso-time.js';

/** Body of `PUT /admin/breakers/:policy/force`. */
export class BreakerForceDto {
  @ApiProperty({
    enum: ['open', 'closed'],
    description: '`open`: refuse every call (kill switch); `closed`: never trip',
  })
  @IsIn(['open', 'closed'])
  state!: 'open' | 'closed';

  @ApiPropertyOptional({
    example: '2030-01-31T12:00:00Z',
    description: 'The force ends by itself at this ISO time',
  })
  @IsOptional()
  @Matches(ISO_TIME_WITH_ZONE, {
    message: 'until must be an ISO 8601 time with a zone, e.g. 2030-01-31T12:00:00Z',
  })
  until?: string;
}
