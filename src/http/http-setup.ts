import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import { FrontDoor } from '../common/front-door.js';
import { ProblemStyles } from '../common/problem-styles.js';
import { ResponseTaps } from '../common/response-taps.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { BodyLimits, expressBodies, fastifyBodies } from './body/body-parsing.js';
import { AnyReply, AnyRequest, requestState } from './http-context.js';
import type { HttpOptions, RampartFastifyAdapter } from './http-adapters.js';
import { mapParserErrors } from './parser-errors.js';
import { pathProblem } from './path-problems.js';
import { toProblem } from './problem.filter.js';
import { queryOf, queryProblem } from './query-string.js';
import { sendProblem } from './send-problem.js';
import { answerRefusal } from './front-door-answer.js';
import { securityHeaders } from './security-headers.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const headerText = (v: number | string | string[] | undefined): string | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);

/**
 * Everything that happens at the HTTP level, before the router: request id,
 * access log and request histogram, the query check, the front door's checks
 * (common/front-door.ts: known refusals, answered at once), security headers,
 * CORS, the body contract (body/body-parsing.ts) and problem+json for
 * parser errors. With http-adapters.ts, the one place with adapter-specific code.
 */
export function setupHttp(app: INestApplication, config: HttpOptions, log: Pino): void {
  const metrics = app.get(MetricsService);
  const styles = app.get(ProblemStyles);
  const taps = app.get(ResponseTaps);
  const door = app.get(FrontDoor);
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
      if (taps.size > 0)
        taps.run({ req, status: res.statusCode, header: (n) => headerText(res.getHeader(n)) });
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
  const bodies: BodyLimits = {
    maxBytes: config.bodyLimitBytes,
    maxDepth: config.bodyMaxDepth,
    idleMs: config.server.bodyIdleTimeoutMs,
  };

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
  const secure = securityHeaders();

  if (config.httpAdapter === 'fastify') {
    const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
    fastify.addHook('onRequest', (request, reply, done) => {
      // First, as helmet did in middie (whose hook comes before this one): on every answer, refusals included.
      secure(reply.raw);
      observe(request.raw, reply.raw, () => request.routeOptions.url);
      const early = pathProblem(request.raw.url) ?? queryProblem(queryOf(request.raw.url));
      const refused = early || door.size === 0 ? undefined : door.run(request.raw);
      // Answered here: `done` is not called, so nothing else (body, handler) runs.
      if (refused) return answerRefusal(request.raw, reply as unknown as AnyReply, refused, styles);
      done(early);
    });
    fastifyBodies(app as NestFastifyApplication, bodies);
    // Nest's exception layer is the error handler; this one answers what that layer throws.
    const adapter = (app as NestFastifyApplication).getHttpAdapter() as RampartFastifyAdapter;
    adapter.fallbackErrorHandler = (err, request, reply) => {
      const { problem, headers } = toProblem(err);
      const state = requestState(request as unknown as AnyRequest);
      state.problem = problem.error;
      const id = state.requestId;
      if (id) problem.request_id = id;
      sendProblem(reply as never, problem, headers, styles.forTarget(request.raw.url));
    };
    if (cors) app.enableCors(cors);
    return;
  }

  const express = app as NestExpressApplication;
  express.use(
    (
      req: IncomingMessage & { route?: { path?: string } },
      res: ServerResponse,
      next: (err?: unknown) => void,
    ) => {
      observe(req, res, () => req.route?.path);
      const early = pathProblem(req.url) ?? queryProblem(queryOf(req.url));
      const refused = early || door.size === 0 ? undefined : door.run(req);
      if (refused) return answerRefusal(req, res as unknown as AnyReply, refused, styles);
      if (!early) secure(res);
      next(early);
    },
  );
  if (cors) express.enableCors(cors);
  expressBodies(express, bodies);
  express.disable('x-powered-by');
}
