import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Protect } from '../chain/protect.decorator.js';
import { ProblemException } from '../common/problem.exception.js';
import { AnyRequest, markBackendCall, requestState } from '../http/http-context.js';
import { SEARCH_BACKEND, SearchBackend } from './search-backend.interface.js';
import { MAX_ID_LENGTH } from './search-document.js';
import { SearchQueryDto } from './search-query.dto.js';
import { SearchItemDto, SearchResponseDto } from './search-response.dto.js';

const PROBLEM = { description: 'application/problem+json with a stable `error` code' };

/** The protected search API over the configured backend (SQLite FTS5 or PostgreSQL). */
@ApiTags('search')
@Controller('v1/search')
export class SearchController {
  constructor(@Inject(SEARCH_BACKEND) private readonly backend: SearchBackend) {}

  @Get()
  @Protect('search')
  @ApiOperation({ summary: 'Full-text search: every term of q must match' })
  @ApiOkResponse({ type: SearchResponseDto })
  @ApiBadRequestResponse({
    ...PROBLEM,
    description:
      'q missing or longer than 256 characters, limit or offset out of range (validation_failed)',
  })
  @ApiServiceUnavailableResponse({
    ...PROBLEM,
    description: 'search backend unavailable (search_unavailable)',
  })
  async search(@Query() query: SearchQueryDto, @Req() req: AnyRequest): Promise<SearchResponseDto> {
    const { signal } = requestState(req);
    markBackendCall(req);
    const page = await this.call(
      () => this.backend.search(query.q, query.limit, query.offset, signal),
      signal,
    );
    return {
      query: query.q,
      total: page.total,
      items: page.items,
      limit: query.limit,
      offset: query.offset,
    };
  }

  @Get('items/:id')
  @Protect('search-item')
  @ApiOperation({ summary: 'One item by id' })
  @ApiOkResponse({ type: SearchItemDto })
  @ApiNotFoundResponse({ ...PROBLEM, description: 'no item with this id (item_not_found)' })
  @ApiServiceUnavailableResponse({
    ...PROBLEM,
    description: 'search backend unavailable (search_unavailable)',
  })
  async item(@Param('id') id: string, @Req() req: AnyRequest): Promise<SearchItemDto> {
    const { signal } = requestState(req);
    markBackendCall(req);
    const item =
      id.length <= MAX_ID_LENGTH
        ? await this.call(() => this.backend.getById(id, signal), signal)
        : undefined;
    if (!item)
      throw ProblemException.fast(404, 'item_not_found', 'Item not found', {
        detail: 'No item has this id',
      });
    return item;
  }

  /** A backend failure is a 503 for the client (and a failure for the circuit breaker); an abort is passed on as is. */
  private async call<T>(work: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ProblemException(503, 'search_unavailable', 'Search backend unavailable', {
        headers: { 'retry-after': '1' },
      });
    }
  }
}
