import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { DecimalInt } from '../http/decimal-int.decorator.js';

/** Query string of `GET /v1/search`. */
export class SearchQueryDto {
  @ApiProperty({
    description:
      'Search text; every term must match (whole terms, case and accents ignored). 1-256 characters after trimming.',
    minLength: 1,
    maxLength: 256,
    example: 'new york',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 256)
  q!: string;

  @ApiPropertyOptional({ description: 'Items per page', minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @DecimalInt()
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 10;

  @ApiPropertyOptional({ description: 'Items to skip', minimum: 0, maximum: 10_000, default: 0 })
  @IsOptional()
  @DecimalInt()
  @IsInt()
  @Min(0)
  @Max(10_000)
  offset: number = 0;
}
