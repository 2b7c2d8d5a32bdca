import type { INestApplication } from '@nestjs/common';
import { ProblemException } from '../common/problem.exception.js';
import { malformedPath } from './path-problems.js';

/** Errors of the raw-body readers that are the client's doing, as problems. */
function clientBodyProblem(err: unknown): ProblemException | undefined {
  const e = err as { type?: unknown; code?: unknown; status?: unknown; message?: unknown } | null;
  // express's router fails to decode a percent-encoded path parameter
  if (err instanceof URIError || String(e?.message).startsWith('Failed to decode param')) {
    return malformedPath();
  }
  if (e?.type === 'encoding.unsupported' || e?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return ProblemException.fast(415, 'unsupported_media_type', 'Unsupported media type', {
      detail: 'bodies must be uncompressed application/json in UTF-8',
    });
  }
  if (e?.type === 'request.aborted' || e?.code === 'ECONNRESET') {
    return ProblemException.fast(400, 'malformed_body', 'Request body could not be parsed', {
      detail: 'the client closed the connection before the body was complete',
    });
  }
  if (e?.type === 'request.size.invalid' || e?.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
    return ProblemException.fast(400, 'malformed_body', 'Request body could not be parsed', {
      detail: 'the body length does not match Content-Length',
    });
  }
  return undefined;
}

/**
 * Both adapters hand reader errors to Nest's exception layer as generic
 * HttpExceptions; answer the client's own mistakes with precise problems.
 */
export function mapParserErrors(app: INestApplication): void {
  const adapter = app.getHttpAdapter() as unknown as { mapException(err: unknown): unknown };
  const map = adapter.mapException.bind(adapter);
  adapter.mapException = (err: unknown) => clientBodyProblem(err) ?? map(err);
}
