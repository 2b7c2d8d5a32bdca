import { build } from 'vite';

/**
 * Builds the console (console/ → dist/console) once before the browser ring,
 * so the app under test serves the console of this checkout.
 */
export async function setup(): Promise<void> {
  await build({ configFile: 'console/vite.config.ts', logLevel: 'warn' });
}
