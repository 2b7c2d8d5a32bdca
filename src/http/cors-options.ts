import type { INestApplication } from '@nestjs/common';

type CorsOptions = NonNullable<Parameters<INestApplication['enableCors']>[0]>;

/** CORS for the configured origins (none: CORS stays off): the headers a signed call sends and reads. */
export function corsOptions(origins: string[]): CorsOptions | undefined {
  return origins.length > 0
    ? {
        origin: origins,
        methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowedHeaders: [
          'content-type',
          'authorization',
          'x-app-id',
          'x-timestamp',
          'x-nonce',
          'x-signature',
          'x-key-id',
          'x-request-id',
          'signature',
          'signature-input',
          'content-digest',
          'x-user-id',
        ],
        exposedHeaders: [
          'retry-after',
          'ratelimit',
          'ratelimit-policy',
          'x-request-id',
          'rampart-shield',
          'rampart-breaker',
        ],
        maxAge: 600,
      }
    : undefined;
}
