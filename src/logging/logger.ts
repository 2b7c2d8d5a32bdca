import type { LoggerService } from '@nestjs/common';
import { pino, Logger as Pino } from 'pino';

/** pino levels, plus `silent`. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Paths pino blanks out whatever logs them: no secret ever reaches a log line. */
const REDACT = [
  '*.secret',
  '*.secrets',
  '*.token',
  '*.password',
  '*.authorization',
  'headers.authorization',
  'headers["x-signature"]',
  'headers["x-telegram-bot-api-secret-token"]',
  'config.adminToken',
  'config.inference.upstreamApiKey',
  'config.metricsToken',
];

/** Structured JSON logs on stdout. */
export function createPino(level: LogLevel, destination?: NodeJS.WritableStream): Pino {
  return pino(
    {
      level,
      base: { service: 'rampart' },
      redact: { paths: REDACT, censor: '***' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ sync: false }),
  );
}

/** Nest's logger interface on top of pino; `context` becomes a field. */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  private write(
    level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal',
    message: unknown,
    rest: unknown[],
  ): void {
    const context =
      typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    if (typeof message === 'object' && message !== null)
      this.pino[level]({ context, ...(message as object) });
    else this.pino[level]({ context }, String(message));
  }

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    // Nest passes (message, stack, context); keep the stack as a field.
    const stack = rest.length >= 2 && typeof rest[0] === 'string' ? rest[0] : undefined;
    if (stack && typeof message === 'string')
      this.write('error', { msg: message, stack }, rest.slice(1));
    else this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
}
