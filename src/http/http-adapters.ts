import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply } from 'fastify';
import { createServer, type RequestListener } from 'node:http';
import { randomUUID } from 'node:crypto';
import { requireHost } from './missing-host.js';
import { malformedPath, uriTooLong } from './path-problems.js';
import { sendProblem } from './send-problem.js';
import { parseQueryString } from './query-string.js';
import { ServerLimits, answerClientError, serverOptions } from './server-limits.js';

/** A fastify error handler (`this` is the fastify instance). */
export type FastifyErrorHandler = Parameters<FastifyAdapter['setErrorHandler']>[0];

/**
 * Fastify with ONE error handler: Nest's (its exception layer, which ends in the app's
 * problem filter), set when the app initialises. An error that handler itself throws goes to
 * `fallbackErrorHandler` (problem+json, set by http-setup.ts), not to fastify's plain JSON.
 * Setting both on the instance would make fastify warn at every start (FSTWRN004).
 */
export class RampartFastifyAdapter extends FastifyAdapter {
  fallbackErrorHandler: FastifyErrorHandler | undefined;

  override setErrorHandler(
    handler: FastifyErrorHandler,
  ): ReturnType<FastifyAdapter['setErrorHandler']> {
    const fallbackOf = (): FastifyErrorHandler | undefined => this.fallbackErrorHandler;
    return super.setErrorHandler(async function (this: unknown, err, request, reply) {
      try {
        return await handler.call(this as never, err, request, reply);
      } catch (thrown) {
        const fallback = fallbackOf();
        if (!fallback) throw thrown;
        return fallback.call(this as never, thrown as never, request, reply);
      }
    } as FastifyErrorHandler);
  }
}

/** The HTTP adapters Rampart runs on. */
export type HttpAdapterName = 'express' | 'fastify';

/** What the HTTP layer needs of the configuration (RampartConfig satisfies it). */
export interface HttpOptions {
  httpAdapter: HttpAdapterName;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Deepest accepted nesting of a JSON body (objects and arrays). */
  bodyMaxDepth: number;
  /** Origins allowed by CORS; empty = CORS off. */
  corsOrigins: string[];
  /** Timeouts and the connection cap of the HTTP server. */
  server: ServerLimits;
}

/**
 * Express, on a Node server created with the service's timeouts, routing
 * like fastify: case-sensitive, and no match for a trailing `/`
 * (`/V1/SEARCH` and `/v1/search/` are 404 on both adapters).
 */
class LimitedExpressAdapter extends ExpressAdapter {
  constructor(private readonly limits: ServerLimits) {
    super();
    // ExpressAdapter's constructor already made the app router (express reads these settings
    // only then), before any route: the router's own options are set instead, and the settings
    // too, for anything that reads them later (Nest's getRouteMatchingOptions reads the router).
    const router = (this.getInstance() as { router: { caseSensitive: boolean; strict: boolean } })
      .router;
    router.caseSensitive = true;
    router.strict = true;
    this.set('case sensitive routing', true);
    this.set('strict routing', true);
  }

  override initHttpServer(options: Parameters<ExpressAdapter['initHttpServer']>[0]): void {
    if (options?.httpsOptions) return super.initHttpServer(options);
    super.initHttpServer(options);
    const server = createServer(serverOptions(this.limits), requireHost(this.getInstance()));
    server.on('clientError', answerClientError);
    this.setHttpServer(server);
  }
}

/** The Nest HTTP adapter for the configured platform. */
export function createHttpAdapter(config: HttpOptions): ExpressAdapter | RampartFastifyAdapter {
  if (config.httpAdapter === 'express') {
    const adapter = new LimitedExpressAdapter(config.server);
    adapter.set('query parser', parseQueryString);
    return adapter;
  }
  return new RampartFastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    return503OnClosing: true,
    // Router options live under routerOptions (fastify 5 deprecates them at the top level: FSTDEP022).
    // Strict routing, as on express: case-sensitive, no match for a trailing `/`.
    routerOptions: {
      maxParamLength: 512,
      querystringParser: parseQueryString,
      caseSensitive: true,
      ignoreTrailingSlash: false,
    },
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    requestTimeout: config.server.requestTimeoutMs,
    serverFactory: (handler: RequestListener) =>
      createServer(serverOptions(config.server), requireHost(handler)),
    clientErrorHandler: answerClientError,
    // The router's own errors (a malformed percent-encoded path, a parameter
    // over maxParamLength) are answered as problems like every other error.
    frameworkErrors: (err: FastifyError, _request: unknown, reply: FastifyReply) => {
      const problem = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? uriTooLong() : malformedPath();
      sendProblem(reply as never, { ...problem.problem, request_id: randomUUID() });
    },
  });
}
