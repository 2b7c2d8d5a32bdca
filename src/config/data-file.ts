import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Reads a JSON or YAML file into a plain value; problems are collected, never thrown. */
export function readDataFile(path: string, what: string, p: { add(m: string): void }): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (e) {
    p.add(`${what} "${path}" cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    return undefined;
  }
  try {
    return extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    p.add(
      `${what} "${path}" is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`,
    );
    return undefined;
  }
}
