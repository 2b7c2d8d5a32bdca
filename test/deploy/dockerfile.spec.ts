/**
 * The production Dockerfile, checked without a daemon: its stages, that every
 * file it copies exists (and is not excluded by .dockerignore), that the
 * command it runs is what the build produces, the npm scripts it calls, the
 * non-root user and the health check on a real route.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { ROOT, getRoutes, read } from './deploy-files.js';

interface Instruction {
  op: string;
  args: string;
  stage: string;
}

/** Instructions of a Dockerfile (continuation lines joined, comments dropped), each with its stage. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = '';
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const line of logical) {
    const [, op, args] = /^([A-Z]+)\s+(.*)$/.exec(line) ?? [];
    if (!op) throw new Error(`not an instruction: ${line}`);
    if (op === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args!)?.[1] ?? `stage${out.length}`;
    out.push({ op, args: args!, stage });
  }
  return out;
}

const dockerfile = parseDockerfile(read('Dockerfile'));
const ignored = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages = [...new Set(dockerfile.map((i) => i.stage))];
const runtime = dockerfile.filter((i) => i.stage === stages.at(-1));

describe('Dockerfile', () => {
  it('should pass the dockerfile-utils linter (the validator of the Docker language server) with no finding', () => {
    const findings = validate(read('Dockerfile')).map(
      (d) => `${d.range.start.line + 1}: ${d.message}`,
    );
    expect(findings).toEqual([]);
    // The linter does find mistakes: a second CMD in one stage.
    expect(validate('FROM node:20\nCMD ["a"]\nCMD ["b"]\n')).toHaveLength(1);
  });

  it('should have a build stage and a runtime stage, from one Node 20 base', () => {
    expect(stages).toEqual(['build', 'runtime']);
    for (const from of dockerfile.filter((i) => i.op === 'FROM'))
      expect(from.args).toMatch(/^node:20\.\d+-bookworm-slim\b/);
    const engines = JSON.parse(read('package.json')).engines.node as string;
    expect(engines).toMatch(/^>=20\./);
  });

  it('should install every dependency and build in stage 1, runtime dependencies only in stage 2', () => {
    const runs = (stage: string) =>
      dockerfile.filter((i) => i.stage === stage && i.op === 'RUN').map((i) => i.args);
    expect(runs('build')).toContain('npm ci --no-audit --no-fund');
    expect(runs('build')).toContain('npm run build');
    expect(runs('runtime').some((r) => r.startsWith('npm ci --omit=dev'))).toBe(true);
    expect(runs('runtime').join('\n')).not.toMatch(/npm (run|install)\b|npm ci(?! --omit=dev)/);
  });

  it('should copy only files that exist and that .dockerignore lets into the context', () => {
    const copies = dockerfile.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'));
    expect(copies.length).toBeGreaterThan(3);
    for (const c of copies) {
      const sources = c.args.split(/\s+/).slice(0, -1);
      for (const src of sources) {
        expect(existsSync(join(ROOT, src)), `COPY ${src}`).toBe(true);
        const top = src.replace(/^\.\//, '').split('/')[0]!;
        expect(ignored, `${src} is excluded by .dockerignore`).not.toContain(top);
      }
    }
  });

  it('should copy into the runtime stage what the service reads at run time', () => {
    const copied = runtime.filter((i) => i.op === 'COPY').map((i) => i.args);
    // The build output (server and console), the Lua scripts (src/redis/lua-scripts.ts reads <root>/lua), package.json (ESM, project root).
    expect(copied).toContain('--from=build /app/dist ./dist');
    expect(copied).toContain('lua ./lua');
    expect(copied.some((c) => c.startsWith('package.json'))).toBe(true);
    expect(read('src/redis/lua-scripts.ts')).toContain("join(projectRoot(), 'lua')");
    expect(read('src/admin/console/console-files.ts')).toContain(
      "join(projectRoot(), 'dist', 'console')",
    );
    expect(read('console/vite.config.ts')).toContain("outDir: here('../dist/console')");
  });

  it('should run dist/src/main.js, the file tsc emits for src/main.ts', () => {
    const cmd = runtime.find((i) => i.op === 'CMD')!;
    expect(JSON.parse(cmd.args)).toEqual(['node', 'dist/src/main.js']);
    const tsconfig = JSON.parse(read('tsconfig.json')).compilerOptions;
    const build = JSON.parse(read('tsconfig.build.json'));
    expect(build.extends).toBe('./tsconfig.json');
    expect(build.include).toContain('src/**/*.ts');
    expect([tsconfig.outDir, tsconfig.rootDir]).toEqual(['dist', '.']);
    expect(existsSync(join(ROOT, 'src/main.ts'))).toBe(true);
    expect(JSON.parse(read('package.json')).scripts.build).toMatch(/^tsc -p tsconfig\.build\.json/);
  });

  it('should run as a non-root user with a node-based health check on /health/live', () => {
    const user = runtime.filter((i) => i.op === 'USER').at(-1)!;
    expect(user.args).toBe('node');
    const hc = runtime.find((i) => i.op === 'HEALTHCHECK')!;
    expect(hc.args).toMatch(/CMD \["node", "-e", ".*\/health\/live/);
    expect(getRoutes()).toContain('/health/live');
    const expose = runtime.find((i) => i.op === 'EXPOSE')!;
    expect(runtime.find((i) => i.op === 'ENV')!.args).toContain(`PORT=${expose.args}`);
  });

  it('should keep local state, secrets and build output out of the build context', () => {
    for (const entry of ['.git', 'node_modules', 'dist', 'data', '.env'])
      expect(ignored).toContain(entry);
  });
});
