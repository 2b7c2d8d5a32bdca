import { readFileSync, readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { projectRoot } from '../../common/paths.js';

/** One file of the built console, held in memory. */
export interface ConsoleFile {
  body: Buffer;
  /** Content-Type header. */
  type: string;
  /** True for content-hashed build assets (cached for a year); false for index.html. */
  immutable: boolean;
}

/** The content types the console is built from; files of any other kind are never served. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Where `npm run build` (vite) puts the console. */
export function defaultConsoleDir(): string {
  return join(projectRoot(), 'dist', 'console');
}

/**
 * The console's static files, read once into memory: a request can only get
 * a file that was in the build folder with a known type — never a path the
 * client made up. While the console is not built, every lookup retries
 * (cheaply: one stat), so building it later needs no restart.
 */
export class ConsoleFiles {
  private files: Map<string, ConsoleFile> | undefined;

  constructor(readonly dir: string = defaultConsoleDir()) {}

  /** True once the build folder with its index.html was found. */
  get built(): boolean {
    return this.load() !== undefined;
  }

  /** The file at `path` relative to /admin/ui/ ('' is index.html); undefined when there is none. */
  get(path: string): ConsoleFile | undefined {
    return this.load()?.get(path === '' ? 'index.html' : path);
  }

  private load(): Map<string, ConsoleFile> | undefined {
    if (this.files) return this.files;
    try {
      if (!statSync(join(this.dir, 'index.html')).isFile()) return undefined;
    } catch {
      return undefined;
    }
    const files = new Map<string, ConsoleFile>();
    for (const path of walk(this.dir, 4)) {
      const type = TYPES[extname(path)];
      if (!type) continue;
      const rel = relative(this.dir, path).split(sep).join('/');
      files.set(rel, { body: readFileSync(path), type, immutable: rel.startsWith('assets/') });
    }
    this.files = files;
    return files;
  }
}

function walk(dir: string, depth: number): string[] {
  if (depth < 0) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return walk(p, depth - 1);
    return e.isFile() ? [p] : [];
  });
}
