import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleFiles } from './console-files.js';

describe(ConsoleFiles.name, () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'rampart-console-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('should report "not built" until index.html exists, then load without a restart', () => {
    const d = dir();
    const sut = new ConsoleFiles(d);
    expect(sut.built).toBe(false);
    expect(sut.get('')).toBeUndefined();
    writeFileSync(join(d, 'index.html'), '<!doctype html>');
    expect(sut.built).toBe(true);
    expect(sut.get('')).toMatchObject({ type: 'text/html; charset=utf-8', immutable: false });
  });

  it('should serve known types only, assets as immutable', () => {
    const d = dir();
    mkdirSync(join(d, 'assets'));
    writeFileSync(join(d, 'index.html'), 'x');
    writeFileSync(join(d, 'assets', 'index-abc.js'), 'js');
    writeFileSync(join(d, 'assets', 'index-abc.css'), 'css');
    writeFileSync(join(d, 'assets', 'notes.map'), 'secret-ish');
    writeFileSync(join(d, '.env'), 'SECRET=1');
    const sut = new ConsoleFiles(d);
    expect(sut.get('assets/index-abc.js')).toMatchObject({
      type: 'text/javascript; charset=utf-8',
      immutable: true,
    });
    expect(sut.get('assets/index-abc.css')?.body.toString()).toBe('css');
    expect(sut.get('assets/notes.map')).toBeUndefined();
    expect(sut.get('.env')).toBeUndefined();
    expect(sut.get('../package.json')).toBeUndefined();
  });
});
