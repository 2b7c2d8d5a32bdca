/**
 * A fake bot backend (the operator's own webhook handler) for forward-mode
 * tests and benchmarks: a real `node:http` server on loopback that records
 * every update it receives (with Rampart's headers) and answers as told.
 *
 *   const be = await startFakeBotBackend();
 *   be.reply = { method: 'sendMessage', chat_id: 1, text: 'hi' };  // relayed to Telegram
 *   be.down = true;                                              // answers 503
 *   be.updates     // update_ids received, in order (every delivery, duplicates kept)
 */
import { once } from 'node:events';
import { createServer, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeBotBackend {
  readonly url: string;
  readonly updates: number[];
  readonly headers: IncomingHttpHeaders[];
  reply: Record<string, unknown> | undefined;
  down: boolean;
  close(): Promise<void>;
}

export async function startFakeBotBackend(): Promise<FakeBotBackend> {
  const be = {
    updates: [] as number[],
    headers: [] as IncomingHttpHeaders[],
    reply: undefined as Record<string, unknown> | undefined,
    down: false,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (be.down) {
        res.writeHead(503).end('down');
        return;
      }
      const u = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
        update_id?: number;
      };
      be.updates.push(u.update_id ?? -1);
      be.headers.push(req.headers);
      if (be.reply) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(be.reply));
      } else res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return Object.assign(be, {
    url: `http://127.0.0.1:${port}/hook`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
