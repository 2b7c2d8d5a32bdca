import { afterEach, describe, expect, it } from 'vitest';
import { RampartFastifyAdapter, createHttpAdapter, type HttpOptions } from './http-adapters.js';

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
  let adapter: RampartFastifyAdapter | undefined;
  afterEach(() => adapter?.getInstance().close());

  it('should build the fastify adapter without a deprecation warning (router options under routerOptions)', async () => {
    const codes: string[] = [];
    const onWarning = (w: Error & { code?: string }) => codes.push(w.code ?? w.name);
    process.on('warning', onWarning);
    try {
      adapter = createHttpAdapter(options) as RampartFastifyAdapter;
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(codes.filter((c) => c.startsWith('FSTDEP'))).toEqual([]);
  });

  it('should parse fastify query strings with the service parser, as on express', async () => {
    adapter = createHttpAdapter(options) as RampartFastifyAdapter;
    const fastify = adapter.getInstance();
    fastify.get('/q', async (req) => req.query);
    const res = await fastify.inject('/q?a=1&constructor=2&a=3&b=x+y');
    // The service parser keeps repeats as a list, reads `+` as a space and drops forbidden names.
    expect(res.json()).toEqual({ a: ['1', '3'], b: 'x y' });
  });

  it('should answer through the error handler set by Nest, and through the fallback when that handler throws', async () => {
    adapter = createHttpAdapter(options) as RampartFastifyAdapter;
    const fastify = adapter.getInstance();
    adapter.fallbackErrorHandler = (err, _req, reply) => {
      void reply.code(500).send({ by: 'fallback', caught: (err as Error).message });
    };
    adapter.setErrorHandler(async (err, req, reply) => {
      if (req.url === '/broken-filter') throw new Error('the filter failed');
      await reply.code(418).send({ by: 'nest', caught: (err as Error).message });
    });
    fastify.get('/fails', async () => {
      throw new Error('handler failed');
    });
    fastify.get('/broken-filter', async () => {
      throw new Error('handler failed');
    });
    expect((await fastify.inject('/fails')).json()).toEqual({
      by: 'nest',
      caught: 'handler failed',
    });
    const broken = await fastify.inject('/broken-filter');
    expect(broken.statusCode).toBe(500);
    expect(broken.json()).toEqual({ by: 'fallback', caught: 'the filter failed' });
  });
});
