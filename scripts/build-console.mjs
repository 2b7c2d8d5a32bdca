// Builds the admin console (console/ → dist/console) only when it is stale: when its output is
// missing, or when any input (a file under console/, package.json or package-lock.json, this
// script) is newer than the output's index.html. `npm run build:console` always builds.
//   node scripts/build-console.mjs            build when stale, else say it is up to date
//   node scripts/build-console.mjs --check    exit 1 (naming why) when stale, 0 when fresh
//   --root <dir>                              the project root (default: this checkout; tests)
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root =
  rootAt >= 0 ? resolve(args[rootAt + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const output = join(root, 'dist', 'console', 'index.html');

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

/** Why the console must be built again, or undefined when its output is fresh. */
function staleBecause() {
  if (!existsSync(output)) return `${relative(root, output)} is missing`;
  const built = statSync(output).mtimeMs;
  const inputs = [
    ...files(join(root, 'console')),
    ...['package.json', 'package-lock.json', 'scripts/build-console.mjs'].map((f) => join(root, f)),
  ].filter((f) => existsSync(f));
  const newer = inputs.find((f) => statSync(f).mtimeMs > built);
  return newer === undefined ? undefined : `${relative(root, newer)} changed`;
}

const why = staleBecause();
if (args.includes('--check')) {
  process.stdout.write(why === undefined ? 'console: fresh\n' : `console: stale (${why})\n`);
  process.exit(why === undefined ? 0 : 1);
}
if (why === undefined) {
  process.stdout.write('console: up to date (dist/console), vite build skipped\n');
} else {
  process.stdout.write(`console: building (${why})\n`);
  const { build } = await import('vite');
  await build({ configFile: join(root, 'console', 'vite.config.ts'), logLevel: 'warn' });
}
