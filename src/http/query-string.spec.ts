import { describe, expect, it } from 'vitest';
import { parseQueryString, queryOf, queryProblem } from './query-string.js';

describe(parseQueryString.name, () => {
  it('should parse repeated names into lists and + into spaces', () => {
    expect(parseQueryString('q=new+york&a=1&a=2&flag')).toEqual({
      q: 'new york',
      a: ['1', '2'],
      flag: '',
    });
    expect(parseQueryString(null)).toEqual({});
  });

  it('should skip what queryProblem refuses instead of throwing', () => {
    expect(parseQueryString('q=%C0%AE&ok=1&__proto__=x')).toEqual({ ok: '1' });
  });
});

describe(queryProblem.name, () => {
  it('should refuse invalid percent-encoding and prototype names', () => {
    expect(queryProblem('q=%C0%AE%C0%AE')?.problem.error).toBe('malformed_query');
    expect(queryProblem('q=100%')?.problem.error).toBe('malformed_query');
    expect(queryProblem('constructor=1')?.problem.error).toBe('malformed_query');
    expect(queryProblem('q=caf%C3%A9&limit=3')).toBeUndefined();
  });

  it('should find the query of a raw URL', () => {
    expect(queryOf('/v1/search?q=a?b')).toBe('q=a?b');
    expect(queryOf('/v1/time')).toBe('');
  });
});
