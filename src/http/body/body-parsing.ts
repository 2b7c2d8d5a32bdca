import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestState, type AnyRequest } from '../http-context.js';
import { watchBodyIdle } from '../server-limits.js';
import { bodyHeadersProblem, hasBody } from './body-contract.js';
import { parseJsonBody } from './json-body.js';

/** The body limits both adapters enforce. */
export interface BodyLimits {
  /** Largest body, in bytes (413 `body_too_large` above). */
  maxBytes: number;
  /** Deepest nesting of a JSON body. */
  maxDepth: number;
  /** Longest silence while the body is received, in milliseconds. */
  idleMs: number;
}

type RawRequest = AnyRequest & { rawBody?: Buffer; body?: unknown };

/** Header checks (415) and the body-idle watch, before a byte of the body is read. */
function beforeBody(
  req: IncomingMessage,
  res: ServerResponse,
  limits: BodyLimits,
): Error | undefined {
  const problem = bodyHeadersProblem(req.headers);
  if (problem) return problem;
  if (hasBody(req.headers) && !req.complete) {
    watchBodyIdle(req, res, limits.idleMs, requestState(req as unknown as AnyRequest).requestId);
  }
  return undefined;
}

/** The parsed body of raw bytes: undefined when empty, else the JSON value (keeps the bytes for signatures). */
function parse(req: RawRequest, bytes: Buffer, limits: BodyLimits): unknown {
  req.rawBody = bytes;
  return bytes.length === 0 ? undefined : parseJsonBody(bytes, limits.maxDepth);
}

/**
 * One body contract on express: the headers are checked first, then the raw
 * bytes are read under the size cap (no decompression), then parsed as JSON
 * with the depth limit — before any route, guard or validator sees the body.
 */
export function expressBodies(app: NestExpressApplication, limits: BodyLimits): void {
  app.use((req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) =>
    next(beforeBody(req, res, limits)),
  );
  app.useBodyParser('raw', { limit: limits.maxBytes, type: () => true, inflate: false });
  app.use((req: RawRequest, _res: ServerResponse, next: (err?: unknown) => void) => {
    if (!Buffer.isBuffer(req.body)) return next();
    try {
      req.body = parse(req, req.body, limits);
      next();
    } catch (err) {
      next(err);
    }
  });
}

/** The same contract on fastify: one parser for every content type, the header checks in preParsing. */
export function fastifyBodies(app: NestFastifyApplication, limits: BodyLimits): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const err = beforeBody(request.raw, reply.raw, limits);
    if (err) done(err);
    else done(null, payload);
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: limits.maxBytes },
    (request, body, done) => {
      try {
        done(null, parse(request as unknown as RawRequest, body as Buffer, limits));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
}
