import { Module } from '@nestjs/common';

/** Search API and its backends (filled in by the search work). */
@Module({})
export class SearchModule {}
