import type { FastifyAdapter } from '@nestjs/platform-fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpAdapter, type HttpOptions } from './http-adapters.js';

const options: HttpOptions = {
  httpAdapter: 'fastify',
  bodyLimitBytes: 1_048_576,
  bodyMaxDepth: 32,
  corsOrigins: [],
  server: {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    bodyIdleTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 100,
  },
};

describe(createHttpAdapter.name, () => {
  let adapter: FastifyAdapter | undefined;
  afterEach(() => adapter?.getInstance().close());

  it('should build the fastify adapter without a deprecation warning (router options under routerOptions)', async () => {
    const codes: string[] = [];
    const onWarning = (w: Error & { code?: string }) => codes.push(w.code ?? w.name);
    process.on('warning', onWarning);
    try {
      adapter = createHttpAdapter(options) as FastifyAdapter;
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(codes.filter((c) => c.startsWith('FSTDEP'))).toEqual([]);
  });

  it('should parse fastify query strings with the service parser, as on express', async () => {
    adapter = createHttpAdapter(options) as FastifyAdapter;
    const fastify = adapter.getInstance();
    fastify.get('/q', async (req) => req.query);
    const res = await fastify.inject('/q?a=1&constructor=2&a=3&b=x+y');
    // The service parser keeps repeats as a list, reads `+` as a space and drops forbidden names.
    expect(res.json()).toEqual({ a: ['1', '3'], b: 'x y' });
  });
});
