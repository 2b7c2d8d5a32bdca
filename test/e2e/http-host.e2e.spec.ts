/**
 * An HTTP/1.1 request without `Host` is refused alike on both adapters:
 * 400 problem+json `missing_host` with a request id, then the connection
 * closes; with `Host` (or as HTTP/1.0) the same request is served.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, RunningApp, startApp } from '../support/app.js';

/** Sends raw bytes; resolves with everything the server wrote until it closed (or after 5 s). */
function rawExchange(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    const timer = setTimeout(() => (socket.destroy(), resolve(got)), 5_000);
    socket.on('data', (c) => (got += c.toString('latin1')));
    socket.on('close', () => (clearTimeout(timer), resolve(got)));
    socket.on('error', () => undefined);
    socket.write(text);
  });
}

describe.each(ADAPTERS)('a request without Host (%s)', (adapter) => {
  let app: RunningApp;

  beforeAll(async () => {
    app = await startApp({ HTTP_ADAPTER: adapter }, { search: 'empty' });
  });
  afterAll(() => app?.close());

  it('should answer 400 problem+json missing_host and close the connection', async () => {
    const got = await rawExchange(app.url, 'GET /health/live HTTP/1.1\r\n\r\n');
    const [head, body] = got.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(head).toMatch(/\r\nconnection: close/i);
    expect(JSON.parse(body!)).toMatchObject({
      status: 400,
      error: 'missing_host',
      request_id: expect.any(String) as string,
    });
  });

  it('should serve the same request with a Host header, or as HTTP/1.0', async () => {
    const host = new URL(app.url).host;
    const withHost = `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
    expect(await rawExchange(app.url, withHost)).toMatch(/^HTTP\/1\.1 200 /);
    expect(await rawExchange(app.url, 'GET /health/live HTTP/1.0\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 200 /,
    );
  });
});
