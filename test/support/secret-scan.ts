/**
 * The e2e-wide secret scan (security sweep). Every app the e2e ring starts
 * through test/support/app.ts logs into this collector (pino at `debug`,
 * whatever LOG_LEVEL says; lines at the configured level still reach
 * stderr), and every response those apps write — status line headers and
 * body bytes, as the server sent them, whichever client asked — is recorded
 * here. The secrets are collected as the run goes: string values of the
 * configuration under a secret-looking name (admin and metrics tokens, the
 * upstream API key, the rate-limit key secret, bot tokens), every app secret
 * the app registry holds when the app starts and closes, and every secret a
 * one-time creation answer hands out. test/support/e2e-setup.ts scans at the
 * end of every e2e file: no secret may appear anywhere, except a generated
 * secret in the one answer that created it.
 */
import { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

interface Recorded {
  where: string;
  text: string;
  /** A one-time creation answer: `secret.value` may appear here, once. */
  oneTime?: string;
}

const MIN_SECRET_LENGTH = 12;
const SECRET_NAME = /(token|secret|password|apikey|api_key|credentials)s?$/i;

const secrets = new Map<string, string>();
let records: Recorded[] = [];
const appPorts = new Set<number>();
let stats = { logLines: 0, responses: 0 };

/** Adds a secret to look for; `label` says where it came from (never its value). */
export function addSecret(value: unknown, label: string): void {
  if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) secrets.set(value, label);
}

/** Adds every string under a secret-looking key of `obj` (the configuration), recursively. */
export function addSecretsOf(obj: unknown, path = 'config'): void {
  if (Array.isArray(obj)) obj.forEach((v, i) => addSecretsOf(v, `${path}[${i}]`));
  else if (obj !== null && typeof obj === 'object')
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      if (typeof v === 'string' && SECRET_NAME.test(k)) addSecret(v, `${path}.${k}`);
      else if (Array.isArray(v) && SECRET_NAME.test(k))
        v.forEach((x, i) => addSecret(x, `${path}.${k}[${i}]`));
      else addSecretsOf(v, `${path}.${k}`);
    }
}

/** A log destination that records every line and passes those at `forwardFrom` or above to stderr. */
export function logSink(forwardFrom: number): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const text = chunk.toString('utf8');
      for (const line of text.split('\n')) {
        if (!line) continue;
        stats.logLines++;
        records.push({ where: 'log', text: line });
        const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
        if (level >= forwardFrom) process.stderr.write(line + '\n');
      }
      done();
    },
  });
}

/** The log lines recorded since the last scan (for tests that check what an app logged). */
export function recordedLogLines(): string[] {
  return records.filter((r) => r.where === 'log').map((r) => r.text);
}

/** Responses written on this port are recorded from now on. */
export function watchPort(port: number): void {
  appPorts.add(port);
}

const chunksOf = new WeakMap<ServerResponse, Buffer[]>();
function keep(res: ServerResponse, chunk: unknown, enc: unknown): void {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
  const port = res.req?.socket?.localPort;
  if (port === undefined || !appPorts.has(port)) return;
  const list = chunksOf.get(res) ?? [];
  list.push(
    Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk)
        : Buffer.from(String(chunk), typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8'),
  );
  chunksOf.set(res, list);
}

let installed = false;
/** Wraps ServerResponse#write/#end once per process. */
export function installResponseCapture(): void {
  if (installed) return;
  installed = true;
  const { write, end } = ServerResponse.prototype;
  ServerResponse.prototype.write = function (
    this: ServerResponse,
    chunk: unknown,
    ...rest: unknown[]
  ) {
    keep(this, chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  ServerResponse.prototype.end = function (
    this: ServerResponse,
    chunk?: unknown,
    ...rest: unknown[]
  ) {
    keep(this, chunk, rest[0]);
    const port = this.req?.socket?.localPort;
    if (port !== undefined && appPorts.has(port)) {
      stats.responses++;
      const body = Buffer.concat(chunksOf.get(this) ?? []).toString('utf8');
      const head = JSON.stringify(this.getHeaders());
      const where = `response ${this.req.method} ${this.req.url} → ${this.statusCode}`;
      records.push({ where, text: `${head}\n${body}`, oneTime: oneTimeSecret(body) });
      chunksOf.delete(this);
    }
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof end;
}

/** The secret a creation answer (`{"secret":{"id":…,"value":…}}`) hands out, if it is one. */
function oneTimeSecret(body: string): string | undefined {
  if (!body.includes('"secret"')) return undefined;
  try {
    const value = (JSON.parse(body) as { secret?: { value?: unknown } }).secret?.value;
    if (typeof value !== 'string') return undefined;
    addSecret(value, 'a generated app secret');
    return value;
  } catch {
    return undefined;
  }
}

/** Every place a known secret appears, other than its one creation answer; then forgets the records. */
export function scanAndReset(): {
  leaks: string[];
  logLines: number;
  responses: number;
  secrets: number;
} {
  const leaks: string[] = [];
  const shownOnce = new Set<string>();
  for (const r of records) {
    for (const [value, label] of secrets) {
      if (!r.text.includes(value)) continue;
      const count = r.text.split(value).length - 1;
      if (r.oneTime === value && count === 1 && !shownOnce.has(value)) {
        shownOnce.add(value);
        continue;
      }
      leaks.push(`${label} in ${r.where}`);
    }
  }
  const out = { leaks, ...stats, secrets: secrets.size };
  records = [];
  stats = { logLines: 0, responses: 0 };
  return out;
}
