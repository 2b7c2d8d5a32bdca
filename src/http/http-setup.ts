import type { INestApplication } from '@nestjs/common';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import helmet from 'helmet';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import { MetricsService } from '../metrics/metrics.service.js';
import { toProblem } from './problem.filter.js';
import { ProblemException } from '../common/problem.exception.js';
import { sendProblem } from './send-problem.js';
import { AnyRequest, requestState } from './http-context.js';

/** The HTTP adapters Rampart runs on. */
export type HttpAdapterName = 'express' | 'fastify';

/** What the HTTP layer needs of the configuration (RampartConfig satisfies it). */
export interface HttpOptions {
  httpAdapter: HttpAdapterName;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Origins allowed by CORS; empty = CORS off. */
  corsOrigins: string[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The Nest HTTP adapter for the configured platform. */
export function createHttpAdapter(config: HttpOptions): ExpressAdapter | FastifyAdapter {
  if (config.httpAdapter === 'fastify') {
    return new FastifyAdapter({
      bodyLimit: config.bodyLimitBytes,
      trustProxy: false,
      return503OnClosing: true,
      maxParamLength: 512,
    });
  }
  return new ExpressAdapter();
}

/**
 * Everything that happens at the HTTP level, before the router: request id,
 * access log and request histogram, security headers, CORS, body parsing
 * with a size cap and the raw bytes kept for the signature lock, and
 * problem+json for parser errors. The one place with adapter-specific code.
 */
export function setupHttp(app: INestApplication, config: HttpOptions, log: Pino): void {
  const metrics = app.get(MetricsService);
  const observe = (
    req: IncomingMessage,
    res: ServerResponse,
    route: () => string | undefined,
  ): void => {
    const state = requestState(req as unknown as AnyRequest);
    const incoming = req.headers['x-request-id'];
    state.requestId =
      typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    state.startedAt = performance.now();
    res.setHeader('x-request-id', state.requestId);
    res.once('finish', () => {
      const seconds = (performance.now() - state.startedAt!) / 1000;
      const template = state.route ?? route() ?? 'unmatched';
      metrics.httpDuration.observe(
        { method: req.method ?? 'GET', route: template, status: String(res.statusCode) },
        seconds,
      );
      if (log.isLevelEnabled('info')) {
        log.info(
          {
            reqId: state.requestId,
            method: req.method,
            route: template,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
            policy: state.policy,
            app: state.appId,
          },
          'request',
        );
      }
    });
  };

  mapParserErrors(app);

  const cors =
    config.corsOrigins.length > 0
      ? {
          origin: config.corsOrigins,
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
  const securityHeaders = helmet({ contentSecurityPolicy: false });

  if (config.httpAdapter === 'fastify') {
    const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
    fastify.addHook('onRequest', (request, reply, done) => {
      observe(request.raw, reply.raw, () => request.routeOptions.url);
      done();
    });
    // Keep the bytes of any content type the built-in parsers do not handle (signatures hash them).
    fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
      (request as unknown as { rawBody: Buffer }).rawBody = body as Buffer;
      done(null, body);
    });
    // fastify's built-in text/plain parser keeps no bytes: replace it with one that does (the body stays a string).
    fastify.removeContentTypeParser('text/plain');
    fastify.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (request, body, done) => {
      (request as unknown as { rawBody: Buffer }).rawBody = body as Buffer;
      done(null, (body as Buffer).toString('utf8'));
    });
    fastify.setErrorHandler((err, request, reply) => {
      const { problem, headers } = toProblem(err);
      const id = requestState(request as unknown as AnyRequest).requestId;
      if (id) problem.request_id = id;
      sendProblem(reply as never, problem, headers);
    });
    app.use(securityHeaders);
    if (cors) app.enableCors(cors);
    return;
  }

  const express = app as NestExpressApplication;
  express.use(
    (
      req: IncomingMessage & { route?: { path?: string } },
      res: ServerResponse,
      next: () => void,
    ) => {
      observe(req, res, () => req.route?.path);
      next();
    },
  );
  express.use(securityHeaders);
  if (cors) express.enableCors(cors);
  express.useBodyParser('json', { limit: config.bodyLimitBytes });
  express.useBodyParser('urlencoded', { limit: config.bodyLimitBytes, extended: true });
  express.useBodyParser('raw', { limit: config.bodyLimitBytes, type: () => true });
  express.disable('x-powered-by');
}

/** Body-parser errors for a body that is not valid JSON (express: body-parser; fastify: its JSON parser). */
function isMalformedBody(err: unknown): boolean {
  const e = err as { type?: unknown; code?: unknown; status?: unknown } | null;
  return (
    (err instanceof SyntaxError && e?.status === 400) ||
    e?.type === 'entity.parse.failed' ||
    e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
  );
}

/**
 * Both adapters hand parser errors to Nest's exception layer as a generic
 * 400 HttpException; answer them as `malformed_body` instead, on both.
 */
function mapParserErrors(app: INestApplication): void {
  const adapter = app.getHttpAdapter() as unknown as { mapException(err: unknown): unknown };
  const map = adapter.mapException.bind(adapter);
  adapter.mapException = (err: unknown) =>
    isMalformedBody(err)
      ? ProblemException.fast(400, 'malformed_body', 'Request body could not be parsed', {
          detail: 'the body is not valid JSON',
        })
      : map(err);
}
