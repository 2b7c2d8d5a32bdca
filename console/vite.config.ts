import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

/**
 * The admin console: Preact + uPlot, built into dist/console and served by
 * the service under /admin/ui (see src/admin/console/). No CDN, no inline
 * scripts (the page runs under a strict Content-Security-Policy).
 */
export default defineConfig({
  root: here('.'),
  base: '/admin/ui/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
