import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Min } from 'class-validator';

const FILTER = /^[a-z][a-z0-9-]{0,62}$/;

/** Body of `POST /admin/bloom/rebuild` (optional). */
export class BloomRebuildDto {
  @ApiPropertyOptional({ description: 'Filter to rebuild; every filter when absent' })
  @IsOptional()
  @Matches(FILTER, { message: 'filter must match [a-z][a-z0-9-]{0,62}' })
  filter?: string;
}

/** Body of `POST /admin/bloom/rollback` (optional). */
export class BloomRollbackDto extends BloomRebuildDto {
  @ApiPropertyOptional({
    minimum: 1,
    description: 'Build to return to; the previous build when absent',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;
}
