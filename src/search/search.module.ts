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
import { openSearchBackend } from './search-backend.factory.js';
import { SEARCH_BACKEND, SearchBackend } from './search-backend.interface.js';
import { SearchController } from './search.controller.js';

/**
 * The protected search API and its backend. Global, so that the cache
 * shield can read the backend's vocabulary and ids through SEARCH_BACKEND.
 */
@Global()
@Module({
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
