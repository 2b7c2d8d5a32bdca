import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { FieldValue, SearchItem } from './search-backend.interface.js';

/** One item (a city in the shipped corpus). */
export class SearchItemDto implements SearchItem {
  @ApiProperty({ example: '2988507' })
  id!: string;

  @ApiProperty({ example: 'Paris' })
  name!: string;

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 country code', example: 'FR' })
  country?: string;

  @ApiPropertyOptional({ example: 2138551 })
  population?: number;

  @ApiPropertyOptional({ description: 'Latitude in degrees', example: 48.85341 })
  lat?: number;

  @ApiPropertyOptional({ description: 'Longitude in degrees', example: 2.3488 })
  lon?: number;

  @ApiPropertyOptional({ type: [String] })
  altNames?: string[];

  @ApiPropertyOptional({
    description: 'Other attributes, returned as stored',
    type: 'object',
    additionalProperties: true,
    example: { featureCode: 'PPLC', adminCode: '11' },
  })
  fields?: Record<string, FieldValue>;
}

/** Answer of `GET /v1/search`. */
export class SearchResponseDto {
  @ApiProperty({ description: 'The query text as searched (trimmed)', example: 'paris' })
  query!: string;

  @ApiProperty({ description: 'Matching items in all', example: 17 })
  total!: number;

  @ApiProperty({ type: [SearchItemDto] })
  items!: SearchItemDto[];

  @ApiProperty({ example: 10 })
  limit!: number;

  @ApiProperty({ example: 0 })
  offset!: number;
}
