import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { AUDIT_ID } from '../audit/audit-log.js';
import { DecimalInt } from '../../http/decimal-int.decorator.js';

/** Query of `GET /admin/audit`. */
export class AuditQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 200, default: 50 })
  @IsOptional()
  @DecimalInt()
  @IsInt()
  @Min(1)
  @Max(200)
  limit?: number;

  @ApiPropertyOptional({
    description: 'Cursor: the `next` of the previous page (entries older than this id)',
  })
  @IsOptional()
  @Matches(AUDIT_ID, { message: 'before must be an entry id such as 1700000000000-0' })
  before?: string;
}

/** Query of `GET /admin/policies/versions`. */
export class VersionsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 100 })
  @IsOptional()
  @DecimalInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}

/** Query of `GET /admin/status/series`. */
export class SeriesQueryDto {
  @ApiPropertyOptional({
    description: 'Epoch milliseconds: only points after it (the `at` of the last point you have)',
  })
  @IsOptional()
  @DecimalInt()
  @IsInt()
  @Min(0)
  since?: number;
}
