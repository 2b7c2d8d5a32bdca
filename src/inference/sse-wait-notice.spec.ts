import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnyReply, type AnyRequest, requestState } from '../http/http-context.js';
import { refusalProblem } from '../locks/circuit-breaker/circuit-breaker.problems.js';
import { SseWaitNotice } from './sse-wait-notice.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A loopback server whose every request waits (queued at 2 of 3), then is refused: what the client reads. */
async function waitThenRefuse(
  stream: boolean,
): Promise<{ status: number; text: string; told: boolean[] }> {
  const notice = new SseWaitNotice();
  const told: boolean[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const r = req as unknown as AnyRequest & { body: unknown };
    r.body = { stream };
    requestState(r).route = '/v1/inference';
    notice.queued(r, res as unknown as AnyReply, { position: 2, length: 3 });
    const problem = refusalProblem('inference', 'busy', 30_000, { why: 'timeout', length: 0 });
    void notice.unanswered(r, res as unknown as AnyReply, problem).then((ended) => {
      told.push(ended);
      if (!ended) res.writeHead(503).end('plain');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const res = await fetch(`http://127.0.0.1:${port}/v1/inference`, { method: 'POST' });
  return { status: res.status, text: await res.text(), told };
}

describe(SseWaitNotice.name, () => {
  it('should open a waiting stream with `: queued`, and end it with an error event when it is refused after all', async () => {
    const { status, text, told } = await waitThenRefuse(true);
    expect(status).toBe(200);
    expect(text.startsWith(': queued position=2 length=3\n\n')).toBe(true);
    const event = /^data: (.*)\n\n$/m.exec(text.split('\n\n')[1] + '\n\n')!;
    expect(JSON.parse(event[1]!)).toMatchObject({ error: { code: 'backend_busy' } });
    expect(told).toEqual([true]);
  });

  it('should leave a JSON call alone: nothing written while it waits, the refusal is the lock’s to answer', async () => {
    const { status, text, told } = await waitThenRefuse(false);
    expect(status).toBe(503);
    expect(text).toBe('plain');
    expect(told).toEqual([false]);
  });
});
