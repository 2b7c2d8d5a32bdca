import { ProblemException } from '../common/problem.exception.js';

/** Longest path segment accepted, in characters (both adapters). */
export const MAX_SEGMENT_LENGTH = 512;

export function uriTooLong(): ProblemException {
  return ProblemException.fast(414, 'uri_too_long', 'URI too long', {
    detail: `a path segment is longer than ${MAX_SEGMENT_LENGTH} characters`,
  });
}

export function malformedPath(): ProblemException {
  return ProblemException.fast(400, 'malformed_path', 'Malformed path', {
    detail: 'the path is not valid percent-encoded UTF-8',
  });
}

/** The problem of a raw request path, checked before routing: an over-long segment. */
export function pathProblem(url: string | undefined): ProblemException | undefined {
  // A URL no longer than one segment may be cannot hold an over-long segment (the common case, no work).
  if (!url || url.length <= MAX_SEGMENT_LENGTH) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  for (const segment of path.split('/'))
    if (segment.length > MAX_SEGMENT_LENGTH) return uriTooLong();
  return undefined;
}
