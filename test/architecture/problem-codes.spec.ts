/**
 * The source answers only codes of the catalogue (src/common/problem-codes.ts), and the
 * catalogue lists only codes the source answers. Literal codes are read where problems are
 * made: `new ProblemException(status, 'code'`, `ProblemException.fast(…`, `InferenceError(kind,
 * status, 'code'`, `error: 'code'` and `PROBLEM_TYPE_BASE + 'code'`. A code passed as a variable
 * is allowed only in the files whose code types are checked against the catalogue.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/common/paths.js';
import { PROBLEM_CODE_LIST, isProblemCode } from '../../src/common/problem-codes.js';
import { SHIELD_CODES } from '../../src/locks/cache-shield/cache-shield.problems.js';
import { SIGNATURE_ERROR_CODES } from '../../src/locks/signature/signature.problems.js';

const ROOT = projectRoot();

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.spec.ts') ? [p] : [];
  });
}

const FILES = sources(join(ROOT, 'src'))
  .filter((f) => !f.endsWith('problem-codes.ts'))
  .map((f) => ({ path: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

const CODE = `'([a-z][a-z0-9_]*)'`;
const LITERAL_SITES = [
  new RegExp(`ProblemException(?:\\.fast)?\\(\\s*[^,()]+,\\s*${CODE}`, 'g'),
  new RegExp(`InferenceError\\(\\s*'[a-z_]+',\\s*[^,()]+,\\s*${CODE}`, 'g'),
  new RegExp(`\\berror: ${CODE}`, 'g'),
  new RegExp(`PROBLEM_TYPE_BASE \\+ ${CODE}`, 'g'),
];
/** A code that is not a literal: `ProblemException(status, code`, `InferenceError(kind, status, error`. */
const COMPUTED_SITES = [
  /ProblemException(?:\.fast)?\(\s*[^,()]+,\s*([A-Za-z_][\w.[\]]*)\s*,/g,
  /InferenceError\(\s*[^,()]+,\s*[^,()]+,\s*([A-Za-z_][\w.[\]]*)\s*,/g,
];
/** Files whose computed codes have a type checked against the catalogue (`satisfies`, `Extract<ProblemCode, …>`). */
const TYPED_CODE_FILES = [
  'src/common/problem.exception.ts',
  'src/inference/inference.errors.ts',
  'src/locks/signature/signature.problems.ts',
  'src/locks/rate-limit/rate-limit.problems.ts',
  'src/locks/circuit-breaker/circuit-breaker.problems.ts',
  'src/locks/cache-shield/cache-shield.problems.ts',
  'src/admin/controllers/admin-telegram.controller.ts',
];

const literals = FILES.flatMap(({ path, text }) =>
  LITERAL_SITES.flatMap((re) => [...text.matchAll(re)].map((m) => ({ path, code: m[1]! }))),
);

describe('problem codes in the source', () => {
  it('should find the codes where problems are made', () => {
    expect(new Set(literals.map((l) => l.code)).size).toBeGreaterThan(40);
  });

  it('should answer only codes of the catalogue', () => {
    const unknown = literals.filter((l) => !isProblemCode(l.code));
    expect(unknown).toEqual([]);
  });

  it('should compute codes only where their type is checked against the catalogue', () => {
    const computed = FILES.flatMap(({ path, text }) =>
      COMPUTED_SITES.flatMap((re) => [...text.matchAll(re)].map(() => path)),
    );
    expect(computed.length).toBeGreaterThan(3);
    expect([...new Set(computed)].filter((p) => !TYPED_CODE_FILES.includes(p))).toEqual([]);
  });

  it('should list in the catalogue only codes that the source answers', () => {
    const answered = new Set<string>([
      ...literals.map((l) => l.code),
      ...SIGNATURE_ERROR_CODES,
      ...SHIELD_CODES,
    ]);
    // The rest are named in a typed factory (`case 'code':`, `= 'code'`) or a table of codes by
    // status (`404: ['not_found', …]`, `unknown_bot: 404,`).
    const named = (code: string) =>
      FILES.some(({ text }) =>
        new RegExp(`(?:case |= |\\d{3}: \\[)'${code}'|^\\s*${code}: \\d{3},`, 'm').test(text),
      );
    const unanswered = PROBLEM_CODE_LIST.filter((c) => !answered.has(c) && !named(c));
    expect(unanswered).toEqual([]);
  });
});
