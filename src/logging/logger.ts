import type { LoggerService } from '@nestjs/common';
import { pino, Logger as Pino } from 'pino';
import prettyStream from 'pino-pretty';
import { CHATTY_NEST_CONTEXTS, LogFormat, LogFormatSetting, logFormatFor } from './log-format.js';

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

/** How lines are written: JSON (the default) or, for a terminal, pretty (with colours or not). */
export interface LogOutput {
  format: LogFormat;
  /** ANSI colours (pretty only); true only when the output is a terminal. */
  colorize?: boolean;
}

/**
 * Lines for people, written by pino-pretty in the order NestJS users know:
 * time, level, `[context]`, message; the fields every line has are left out.
 * Synchronous: a terminal's volume is small, and no line is lost at exit.
 */
function prettyDestination(colorize: boolean, destination?: NodeJS.WritableStream) {
  return prettyStream({
    colorize,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,context,summary',
    messageFormat: '{if context}[{context}] {end}{msg}',
    singleLine: true,
    sync: true,
    ...(destination ? { destination } : {}),
  });
}

/** The output for this process: LOG_FORMAT, and whether stdout is a terminal (colours only there). */
export function stdoutLogOutput(setting: LogFormatSetting): LogOutput {
  const tty = process.stdout.isTTY === true;
  return { format: logFormatFor(setting, tty), colorize: tty };
}

/** Logs on stdout: structured JSON lines (pino), or pretty lines when `output` says so. */
export function createPino(
  level: LogLevel,
  destination?: NodeJS.WritableStream,
  output: LogOutput = { format: 'json' },
): Pino {
  const options = {
    level,
    base: { service: 'rampart' },
    redact: { paths: REDACT, censor: '***' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (output.format === 'pretty')
    return pino(options, prettyDestination(output.colorize ?? false, destination));
  return pino(options, destination ?? pino.destination({ sync: false }));
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
    const context = rest[rest.length - 1];
    const chatty = typeof context === 'string' && CHATTY_NEST_CONTEXTS.has(context);
    this.write(chatty ? 'debug' : 'info', message, rest);
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
