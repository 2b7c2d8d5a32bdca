import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadAppConfig } from '../app.config.js';
import { logFormatFor } from './log-format.js';
import { LogOutput, PinoNestLogger, createPino } from './logger.js';

/** A destination that keeps every line as written. */
function capture() {
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, raw };
}

const ANSI = new RegExp(String.fromCharCode(27) + '\\[');
const PRETTY: LogOutput = { format: 'pretty', colorize: false };

describe(logFormatFor.name, () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['pretty', false, 'pretty'],
    ['json', true, 'json'],
  ] as const)('should make LOG_FORMAT=%s with a terminal %s write %s', (setting, tty, format) => {
    expect(logFormatFor(setting, tty)).toBe(format);
  });

  it('should read LOG_FORMAT: auto by default, json in production, and refuse anything else', () => {
    expect(loadAppConfig({}).logFormat).toBe('auto');
    expect(loadAppConfig({ NODE_ENV: 'production' }).logFormat).toBe('json');
    expect(loadAppConfig({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }).logFormat).toBe(
      'pretty',
    );
    expect(() => loadAppConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });
});

describe('pretty log lines', () => {
  it('should write time, level, [context] and message, not JSON', () => {
    const { stream, raw } = capture();
    new PinoNestLogger(createPino('info', stream, PRETTY)).log('mapped the routes', 'Boot');
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[Boot\] mapped the routes$/);
    expect(raw[0]).not.toMatch(ANSI);
  });

  it('should colour only when asked (a terminal)', () => {
    const { stream, raw } = capture();
    createPino('info', stream, { format: 'pretty', colorize: true }).warn('careful');
    expect(raw[0]).toMatch(ANSI);
  });

  it('should blank out secrets as the JSON lines do', () => {
    const { stream, raw } = capture();
    const secret = 'S3CRET-value-that-must-never-be-logged';
    createPino('info', stream, PRETTY).info({ headers: { authorization: secret } }, 'request');
    expect(raw.join('\n')).not.toContain(secret);
    expect(raw.join('\n')).toContain('***');
  });
});

describe(PinoNestLogger.name, () => {
  it.each(['json', 'pretty'] as const)(
    "should log Nest's per-module and per-route lines at debug (%s)",
    (format) => {
      const info = capture();
      const atInfo = new PinoNestLogger(createPino('info', info.stream, { format }));
      for (const ctx of ['InstanceLoader', 'RouterExplorer', 'RoutesResolver'])
        atInfo.log(`a line of ${ctx}`, ctx);
      atInfo.log('Nest application successfully started', 'NestApplication');
      expect(info.raw).toHaveLength(1);
      expect(info.raw[0]).toContain('successfully started');

      const debug = capture();
      new PinoNestLogger(createPino('debug', debug.stream, { format })).log(
        'AppModule dependencies initialized',
        'InstanceLoader',
      );
      expect(debug.raw.join('\n')).toContain('AppModule dependencies initialized');
    },
  );
});
