// The built app (dist/) plus bench-only routes, for bench:chain. Never shipped:
// the routes exist only in this entry, next to the same app main.ts builds.
//   GET /bench/floor  one empty guard + one empty interceptor (Nest's own floor)
//   GET /bench/off    @Protect('bench-off'): the chain with every lock off
// Both answer what GET /v1/time answers, so the three differ only in their plumbing.
//   GET /bench/floor-search  the floor answering a fixed body of the size and shape of the
//                            measured search answer (the locks' cost without the answer's)
//   GET /bench/reject  a guard that throws a ready-made 401 problem (Nest's own floor for a
//                      rejection: its exception path and the app's problem filter, no lock)
//   GET /bench/floor-redis  the floor whose guard awaits one Redis round trip, as a lock makes it:
//                           lua/ping.lua through RedisService.script (EVALSHA, one per request)
const dist = new URL('../../dist/src/', import.meta.url).href;
const { createApp } = await import(`${dist}app.factory.js`);
const { loadAppConfig } = await import(`${dist}app.config.js`);
const { BenchModule } = await import('./chain-routes.mjs');

const config = loadAppConfig();
const app = await createApp(config, { imports: [BenchModule] });
await app.listen(config.port, config.host);
const stop = () => app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
