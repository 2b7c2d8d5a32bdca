import 'reflect-metadata';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { Logger as Pino } from 'pino';
import { AppModule } from './app.module.js';
import type { RampartConfig } from './config/config.types.js';
import { createHttpAdapter } from './http/http-adapters.js';
import { setupHttp } from './http/http-setup.js';
import { applyServerLimits } from './http/server-limits.js';
import { PinoNestLogger, createPino } from './logging/logger.js';

export interface CreateAppOptions {
  /** Extra modules (tests). */
  imports?: NonNullable<ModuleMetadata['imports']>;
  /** Replaces the lock modules (tests of the chain itself). */
  locks?: NonNullable<ModuleMetadata['imports']>;
  /** Log destination (tests pass a sink). */
  logger?: Pino;
}

/** Builds the whole Rampart app (not yet listening) from a loaded configuration. */
export async function createApp(
  config: RampartConfig,
  opts: CreateAppOptions = {},
): Promise<INestApplication> {
  const log = opts.logger ?? createPino(config.logLevel);
  const app = await NestFactory.create(
    AppModule.forRoot(config, opts.imports, opts.locks),
    createHttpAdapter(config),
    {
      rawBody: true,
      bodyParser: false,
      logger: new PinoNestLogger(log),
      abortOnError: false,
    },
  );
  setupHttp(app, config, log);
  applyServerLimits(app.getHttpServer(), config.server);
  // Signals are handled by drainOnSignals (main.ts): readiness 503 first, then close.
  const doc = new DocumentBuilder()
    .setTitle('Rampart')
    .setDescription(
      'Search and inference APIs behind four locks: signature, rate limit, cache shield, circuit breaker.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer' }, 'admin')
    .build();
  if (config.docsEnabled) {
    SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, doc), {
      jsonDocumentUrl: 'docs/openapi.json',
    });
  }
  return app;
}
