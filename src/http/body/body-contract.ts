import { ProblemException } from '../../common/problem.exception.js';

type Headers = Record<string, string | string[] | undefined>;

const JSON_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json$/;

/** True when the request carries a body (a non-zero length or a chunked transfer). */
export function hasBody(headers: Headers): boolean {
  const length = headers['content-length'];
  if (length !== undefined && length !== '0') return true;
  return headers['transfer-encoding'] !== undefined;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The body contract, checked from the headers before a byte of the body is
 * read, the same on both adapters: JSON only (`application/json` or a
 * `+json` type, charset utf-8 when one is named), no content encoding.
 * Returns the problem to answer (415), or undefined when the body may be read.
 */
export function bodyHeadersProblem(headers: Headers): ProblemException | undefined {
  if (!hasBody(headers)) return undefined;
  const encoding = first(headers['content-encoding'])?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return ProblemException.fast(
      415,
      'unsupported_content_encoding',
      'Unsupported content encoding',
      {
        detail: `Content-Encoding "${encoding.slice(0, 40)}" is not accepted; send the body uncompressed`,
        headers: { 'accept-encoding': 'identity' },
      },
    );
  }
  const raw = first(headers['content-type']) ?? '';
  const [type = '', ...params] = raw.split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (
    JSON_TYPE.test(type) &&
    (charset === undefined || charset === 'utf-8' || charset === 'utf8')
  ) {
    return undefined;
  }
  return ProblemException.fast(415, 'unsupported_media_type', 'Unsupported media type', {
    detail: `bodies must be application/json in UTF-8 (got "${raw.slice(0, 80) || 'none'}")`,
    headers: { accept: 'application/json' },
  });
}
