import { parseArgs } from 'node:util';
import { signRequestDetailed } from './sign-request.js';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Reads a body file ('-' = stdin). */
  readFile(path: string): Buffer;
}

const USAGE = `usage: npm run --silent sign -- [options] <METHOD> <URL> [body-file]

Signs one request for Rampart (Rampart-HMAC-SHA256); prints the headers and a ready curl line.
  --app-id <id>       app id            (default: $RAMPART_APP_ID)
  --secret <secret>   app secret        (default: $RAMPART_APP_SECRET; prefer the variable: flags show in ps)
  --key-id <id>       secret id, sent as X-Key-Id (default: $RAMPART_KEY_ID, or none)
  --timestamp <ms>    fixed timestamp   (default: now)
  --nonce <nonce>     fixed nonce       (default: random)
  -H, --header <h>    extra header for the curl line, e.g. -H 'content-type: application/json'
  --explain           also print the string to sign
  body-file           file with the exact body bytes ('-' = stdin)`;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function contentTypeFor(file: string): string {
  if (/\.json$/i.test(file)) return 'application/json';
  if (/\.txt$/i.test(file)) return 'text/plain';
  return 'application/octet-stream';
}

/** The `sign` CLI without process globals; returns the exit code. */
export function runSignCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'app-id': { type: 'string' },
        secret: { type: 'string' },
        'key-id': { type: 'string' },
        timestamp: { type: 'string' },
        nonce: { type: 'string' },
        header: { type: 'string', short: 'H', multiple: true },
        explain: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    io.err(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  if (v.help) {
    io.out(USAGE);
    return 0;
  }
  const [method, url, bodyFile] = positionals;
  const appId = v['app-id'] ?? env.RAMPART_APP_ID;
  const secret = v.secret ?? env.RAMPART_APP_SECRET;
  const keyId = v['key-id'] ?? (env.RAMPART_KEY_ID || undefined);
  const problems: string[] = [];
  if (!method || !url || positionals.length > 3) problems.push('give <METHOD> <URL> [body-file]');
  if (url && !/^https?:\/\//.test(url)) problems.push('URL must be absolute (http:// or https://)');
  if (!appId) problems.push('no app id: set RAMPART_APP_ID or --app-id');
  if (!secret) problems.push('no secret: set RAMPART_APP_SECRET or --secret');
  if (v.timestamp !== undefined && !/^\d{13}$/.test(v.timestamp))
    problems.push('--timestamp must be milliseconds since the epoch (13 digits)');
  if (problems.length > 0) {
    io.err(`${problems.join('\n')}\n\n${USAGE}`);
    return 2;
  }
  let body: Buffer | undefined;
  if (bodyFile !== undefined) {
    try {
      body = io.readFile(bodyFile);
    } catch (e) {
      io.err(
        `cannot read ${bodyFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
      return 2;
    }
  }
  const u = new URL(url!);
  const signed = signRequestDetailed({
    appId: appId!,
    secret: secret!,
    keyId,
    method: method!,
    url: u,
    body,
    timestamp: v.timestamp,
    nonce: v.nonce,
  });
  for (const [k, val] of Object.entries(signed.headers)) io.out(`${k}: ${val}`);
  if (v.explain) {
    io.out('');
    io.out('# string to sign (lines joined by \\n, no trailing newline):');
    for (const line of signed.stringToSign.split('\n')) io.out(line);
  }
  const extra = v.header ?? [];
  if (bodyFile !== undefined && !extra.some((h) => /^content-type\s*:/i.test(h)))
    extra.push(`content-type: ${contentTypeFor(bodyFile)}`);
  const parts = ['curl', '-sS', '-X', method!.toUpperCase(), quote(u.href)];
  for (const [k, val] of Object.entries(signed.headers)) parts.push('-H', quote(`${k}: ${val}`));
  for (const h of extra) parts.push('-H', quote(h));
  if (bodyFile !== undefined) parts.push('--data-binary', quote(`@${bodyFile}`));
  io.out('');
  io.out(parts.join(' '));
  return 0;
}
