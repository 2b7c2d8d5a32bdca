/**
 * The stand-in for an app's own server (not Rampart): serves the example
 * page and the browser SDK, signs users in (a cookie), and mints a session
 * key for the signed-in user with the SDK — the app secret never leaves it.
 * Started by test/browser/session-keys.spec.ts.
 */
import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { extname, join } from 'node:path';
import ts from 'typescript';
import { deriveSessionKey } from '../../src/sdk/session-key.js';

export interface ExampleAppOptions {
  appId: string;
  appSecret: string;
  /** Session key life, e.g. '2s' in tests, '10m' in real use. */
  ttl: string;
  scope: string[];
}

const HERE = 'examples/browser';
const SDK = 'src/sdk/browser';
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };

/** Serves the page; `rampartUrl` is set once Rampart runs (it must allow this origin in CORS_ORIGINS). */
export async function startExampleApp(o: ExampleAppOptions): Promise<{
  url: string;
  server: Server;
  setRampartUrl(u: string): void;
  close(): Promise<void>;
}> {
  let rampartUrl = '';
  const users = new Map<string, string>();
  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const sid = /sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (path === '/config') return json(res, { rampartUrl });
      if (path === '/favicon.ico') return res.writeHead(204).end();
      if (path === '/sign-in' && req.method === 'POST') {
        let user = '';
        for await (const chunk of req) user += String(chunk);
        const id = crypto.randomUUID();
        users.set(id, user.trim());
        res.writeHead(204, { 'set-cookie': `sid=${id}; HttpOnly; SameSite=Strict; Path=/` });
        return res.end();
      }
      if (path === '/session-key' && req.method === 'POST') {
        const user = sid ? users.get(sid) : undefined;
        if (!user) return json(res, { error: 'not signed in' }, 401);
        const key = deriveSessionKey(o.appSecret, {
          appId: o.appId,
          user,
          scope: o.scope,
          ttl: o.ttl,
        });
        return json(res, {
          appId: key.appId,
          keyId: key.keyId,
          secret: key.secret,
          expiresAt: key.expiresAt,
        });
      }
      // The SDK's modules, and the one pure module it shares with the server (src/common/canonical-target.ts).
      const module =
        path.startsWith('/sdk/browser/') && /^[\w-]+\.js$/.test(path.slice(13))
          ? join(SDK, path.slice(13))
          : path === '/common/canonical-target.js'
            ? 'src/common/canonical-target.js'
            : undefined;
      if (module) {
        const src = await readFile(module.replace(/\.js$/, '.ts'), 'utf8');
        const out = ts.transpileModule(src, {
          compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
        });
        res.writeHead(200, { 'content-type': TYPES['.js']! });
        return res.end(out.outputText);
      }
      const file = path === '/' ? 'index.html' : path.slice(1);
      if (!['index.html', 'app.js'].includes(file)) return json(res, { error: 'not found' }, 404);
      res.writeHead(200, { 'content-type': TYPES[extname(file)]! });
      res.end(await readFile(join(HERE, file)));
    })().catch((e: unknown) => json(res, { error: String(e) }, 500));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    setRampartUrl: (u) => (rampartUrl = u),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function json(res: import('node:http').ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
