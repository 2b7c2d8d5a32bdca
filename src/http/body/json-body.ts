import { ProblemException } from '../../common/problem.exception.js';

/**
 * Keys refused anywhere in a body: they name prototype machinery, never data
 * (`__proto__`, `constructor`, `prototype`, and every other name an object
 * inherits, such as `toString` or `hasOwnProperty`, which transformers and
 * merges would otherwise skip or mistake for an existing field).
 */
const FORBIDDEN_KEYS = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function malformed(detail: string, extra: Record<string, unknown> = {}): ProblemException {
  return ProblemException.fast(400, 'malformed_body', 'Request body could not be parsed', {
    detail,
    ...extra,
  });
}

/**
 * The nesting depth of a JSON text, counted over its bytes before any parser
 * or transformer sees it; stops as soon as `max` is passed (returns max + 1).
 * Brackets inside strings do not count.
 */
export function jsonDepth(bytes: Uint8Array, max: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > deepest && (deepest = depth) > max) return deepest;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return deepest;
}

/** The first key (as a JSON path) that names prototype machinery, or undefined. */
export function forbiddenKey(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
      continue;
    }
    for (const key of Object.keys(v)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) return at;
      stack.push([(v as Record<string, unknown>)[key], at]);
    }
  }
  return undefined;
}

/**
 * Parses a JSON request body under the service's contract: UTF-8, at most
 * `maxDepth` levels of nesting (checked before parsing, so no validator or
 * transformer ever recurses into a hostile body), and no prototype-named key.
 * Every failure is a 400 `malformed_body` that names the limit or the field.
 */
export function parseJsonBody(bytes: Uint8Array, maxDepth: number): unknown {
  const depth = jsonDepth(bytes, maxDepth);
  if (depth > maxDepth) {
    throw malformed(`the body nests deeper than ${maxDepth} levels`, {
      limit: 'depth',
      max_depth: maxDepth,
    });
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw malformed('the body is not valid UTF-8');
  }
  let value: unknown;
  try {
    // JSON.parse keeps "__proto__" as an own data key; forbiddenKey refuses it below.
    value = JSON.parse(text);
  } catch {
    throw malformed('the body is not valid JSON');
  }
  const key = forbiddenKey(value);
  if (key !== undefined) {
    throw malformed(`the body has a forbidden key "${key}"`, { field: key });
  }
  return value;
}
