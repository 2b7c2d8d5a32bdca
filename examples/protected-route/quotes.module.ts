import { Controller, Get, Module, Param, Req } from '@nestjs/common';
import { Protect } from '../../src/chain/protect.decorator.js';
import { type AnyRequest, markBackendCall } from '../../src/http/http-context.js';
import { CacheShieldModule } from '../../src/locks/cache-shield/cache-shield.module.js';
import { RateLimitModule } from '../../src/locks/rate-limit/rate-limit.module.js';
import { fetchQuote } from './quotes.data.js';
import { quoteCost, quoteIdKeys, quoteIds, quoteNotFound } from './quotes.plugins.js';

/** `GET /v1/quotes/:id` behind all four locks, under the route policy `quotes`. */
@Controller('v1/quotes')
class QuotesController {
  @Get(':id')
  @Protect('quotes')
  async quote(@Param('id') id: string, @Req() req: AnyRequest) {
    markBackendCall(req); // from here on, a failure is the backend's (the breaker counts it)
    const quote = await fetchQuote(id);
    if (!quote) throw quoteNotFound();
    return { id, ...quote };
  }
}

/** The whole product: add it to AppModule's imports, and a `quotes` policy to the configuration. */
@Module({
  imports: [
    RateLimitModule.forFeature({ costs: { 'quote-detail': quoteCost } }),
    CacheShieldModule.forFeature({ keySources: { 'quote-id': quoteIdKeys }, filters: [quoteIds] }),
  ],
  controllers: [QuotesController],
})
export class QuotesModule {}
