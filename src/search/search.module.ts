import {
  Global,
  Inject,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { RAMPART_CONFIG } from '../config/config.constants.js';
import type { RampartConfig } from '../config/config.types.js';
import { HealthRegistry } from '../health/health-registry.service.js';
import { CacheShieldModule } from '../locks/cache-shield/cache-shield.module.js';
import { openSearchBackend } from './search-backend.factory.js';
import { SEARCH_BACKEND, SearchBackend } from './search-backend.interface.js';
import { searchShieldFeature } from './search-shield.js';
import { SearchController } from './search.controller.js';

/**
 * The protected search API and its backend (global: SEARCH_BACKEND is
 * reachable app-wide, e.g. by the shield feature below and by tests). It
 * plugs into the cache shield with its key sources and filters.
 */
@Global()
@Module({
  imports: [
    CacheShieldModule.forFeatureAsync({
      inject: [SEARCH_BACKEND],
      useFactory: searchShieldFeature,
    }),
  ],
  controllers: [SearchController],
  providers: [
    {
      provide: SEARCH_BACKEND,
      inject: [RAMPART_CONFIG],
      useFactory: (config: RampartConfig): Promise<SearchBackend> => {
        const logger = new Logger('Search');
        return openSearchBackend(config, { log: (m) => logger.log(m) });
      },
    },
  ],
  exports: [SEARCH_BACKEND],
})
export class SearchModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(SEARCH_BACKEND) private readonly backend: SearchBackend,
    private readonly health: HealthRegistry,
  ) {}

  onModuleInit(): void {
    this.health.register('search', async () => {
      await this.backend.ping();
      const { items, terms } = await this.backend.count();
      return { backend: this.backend.name, items, terms };
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.backend.close();
  }
}
