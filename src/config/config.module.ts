import { DynamicModule, Global, Inject, Module } from '@nestjs/common';
import { RAMPART_CONFIG } from './config.constants.js';
import type { RampartConfig } from './config.types.js';

/** Provides the configuration that main.ts (or a test) loaded and validated once. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: RampartConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: RAMPART_CONFIG, useValue: config }],
      exports: [RAMPART_CONFIG],
    };
  }
}

/** Parameter decorator: `constructor(@InjectConfig() config: RampartConfig)`. */
export const InjectConfig = (): ParameterDecorator => Inject(RAMPART_CONFIG);
