import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { PROBLEM_TYPE_BASE } from '../common/problem.exception.js';

/**
 * An HTTP/1.1 request must carry `Host` (RFC 9112 §3.2). Node's own check
 * (`requireHostHeader`, turned off in serverOptions) answers a bare 400 with
 * no body; this one answers 400 problem+json `missing_host` and closes the
 * connection, before either adapter sees the request. HTTP/1.0 may omit it.
 */
export function requireHost(handler: RequestListener): RequestListener {
  return (req, res) => {
    if (req.headers.host !== undefined || req.httpVersion !== '1.1') {
      handler(req, res);
      return;
    }
    const requestId = randomUUID();
    const body = JSON.stringify({
      type: PROBLEM_TYPE_BASE + 'missing_host',
      title: 'Bad Request',
      status: 400,
      error: 'missing_host',
      detail: 'an HTTP/1.1 request must carry a Host header',
      request_id: requestId,
    });
    res.writeHead(400, {
      'content-type': 'application/problem+json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    res.end(body);
  };
}
