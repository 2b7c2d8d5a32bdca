import { describe, expect, it } from 'vitest';
import { ProblemException } from '../../common/problem.exception.js';
import { forbiddenKey, jsonDepth, parseJsonBody } from './json-body.js';

const bytes = (s: string): Buffer => Buffer.from(s);

function problemOf(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemException);
    return (e as ProblemException).problem;
  }
  throw new Error('expected a problem');
}

describe(jsonDepth.name, () => {
  it('should count nesting of objects and arrays, not brackets inside strings', () => {
    expect(jsonDepth(bytes('1'), 10)).toBe(0);
    expect(jsonDepth(bytes('{"a":[1,{"b":[]}]}'), 10)).toBe(4);
    expect(jsonDepth(bytes('{"a":"[[[[{{{{\\"[["}'), 10)).toBe(1);
  });

  it('should stop counting once past the limit', () => {
    expect(jsonDepth(bytes('['.repeat(100_000)), 64)).toBe(65);
  });
});

describe(forbiddenKey.name, () => {
  it('should name the path of a prototype-named key, at any depth', () => {
    expect(forbiddenKey(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toBe('a[0].b.__proto__');
    expect(forbiddenKey({ constructor: 1 })).toBe('constructor');
    expect(forbiddenKey({ a: { toString: 1 } })).toBe('a.toString');
    expect(forbiddenKey({ a: { hasOwnProperty: 1, valueOf: 2 } })).toBe('a.hasOwnProperty');
    expect(forbiddenKey({ a: { tostring: 1, proto: 2 } })).toBeUndefined();
  });
});

describe(parseJsonBody.name, () => {
  it('should parse valid JSON within the limits', () => {
    expect(parseJsonBody(bytes('{"q":"é","n":[1,2]}'), 8)).toEqual({ q: 'é', n: [1, 2] });
  });

  it('should refuse a body past the depth limit before parsing it', () => {
    const p = problemOf(() => parseJsonBody(bytes(`${'['.repeat(1_500)}${']'.repeat(1_500)}`), 64));
    expect(p).toMatchObject({
      status: 400,
      error: 'malformed_body',
      limit: 'depth',
      max_depth: 64,
    });
  });

  it('should refuse invalid JSON, invalid UTF-8 and prototype keys as malformed_body', () => {
    expect(problemOf(() => parseJsonBody(bytes('{"a":'), 8))).toMatchObject({
      error: 'malformed_body',
    });
    expect(problemOf(() => parseJsonBody(Buffer.from([0x22, 0xc0, 0xae, 0x22]), 8)).detail).toMatch(
      /UTF-8/,
    );
    expect(problemOf(() => parseJsonBody(bytes('{"__proto__":{"x":1}}'), 8))).toMatchObject({
      field: '__proto__',
    });
  });
});
