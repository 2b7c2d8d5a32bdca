import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
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
import { corsOptions } from './cors-options.js';
import { requestObserver } from './request-observer.js';
import { securityHeaders } from './security-headers.js';

/**
 * Everything that happens at the HTTP level, before the router: request id,
 * access log and request histogram (request-observer.ts), the query check, the
 * front door's checks (common/front-door.ts: known refusals, answered at once),
 * security headers, CORS (cors-options.ts), the body contract
 * (body/body-parsing.ts) and problem+json for parser errors. With
 * http-adapters.ts, the one place with adapter-specific code.
 */
export function setupHttp(app: INestApplication, config: HttpOptions, log: Pino): void {
  const metrics = app.get(MetricsService);
  const styles = app.get(ProblemStyles);
  const taps = app.get(ResponseTaps);
  const door = app.get(FrontDoor);
  const observe = requestObserver(metrics, taps, log);

  mapParserErrors(app);
  const bodies: BodyLimits = {
    maxBytes: config.bodyLimitBytes,
    maxDepth: config.bodyMaxDepth,
    idleMs: config.server.bodyIdleTimeoutMs,
  };

  const cors = corsOptions(config.corsOrigins);
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
