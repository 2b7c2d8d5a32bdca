import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as Pino } from 'pino';
import type { ResponseTaps } from '../common/response-taps.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { AnyRequest, requestState } from './http-context.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const headerText = (v: number | string | string[] | undefined): string | undefined =>
  v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);

/** Watches one request from its arrival: `route` names its route template once it is known. */
export type RequestObserver = (
  req: IncomingMessage,
  res: ServerResponse,
  route: () => string | undefined,
) => void;

/**
 * The first thing done to every request, on both adapters: its request id (the client's `X-Request-Id`
 * when well formed, else a new one, echoed in the answer), then, when the answer is finished, the
 * response taps, the request histogram and the access log line.
 */
export function requestObserver(
  metrics: MetricsService,
  taps: ResponseTaps,
  log: Pino,
): RequestObserver {
  return (req, res, route) => {
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
}
