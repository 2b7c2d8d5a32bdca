import { request } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAKE_MODEL, type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.js';

// The fake upstream must be as well-behaved a process as a real one: an endless stream with no chunk delay
// (bench:attack's slow readers) may not hold the fake's event loop while the kernel takes its writes.
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.setChunkDelay(0);
  fake.setEndlessStreams(1024);
});
afterAll(() => fake.close());

/** Reads `limit` bytes of one endless stream at full speed; counts the event-loop turns meanwhile. */
function readEndless(limit: number): Promise<{ bytes: number; turns: number }> {
  let turns = 0;
  let reading = true;
  const tick = (): void => {
    turns++;
    if (reading) setImmediate(tick);
  };
  const body = JSON.stringify({
    model: FAKE_MODEL,
    stream: true,
    messages: [{ role: 'user', content: 'endless' }],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let bytes = 0;
        setImmediate(tick);
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes < limit || !reading) return;
          reading = false;
          req.destroy();
          resolve({ bytes, turns });
        });
      },
    );
    req.on('error', (err) => reading && reject(err));
    req.end(body);
  });
}

it('should yield its event loop between the chunks of an endless stream without a delay', async () => {
  const { bytes, turns } = await readEndless(2 * 1024 * 1024);
  // Each chunk is ~1.1 KB on the wire; the fake writes one, then lets the loop turn. A fake that loops on
  // microtasks writes until the socket's buffer is full (megabytes) before the loop turns once.
  const chunks = bytes / 1_200;
  expect(turns).toBeGreaterThan(chunks / 4);
});
