// bench:inference — POST /v1/inference on express and fastify, in one run:
// the local demo model (JSON and streamed), and the upstream proxy (JSON and
// streamed) next to the same fake upstream called directly. Every lock is
// off for the inference policy, so this measures the API and its backends.
import { cannon, measure, startApp, summary, table, writeConfig, SECONDS, CONNECTIONS } from './lib.mjs';
import { spawnFakeOpenAI } from './fake-openai-server.mjs';

const LOCKS = ['signature', 'rateLimit', 'cacheShield', 'circuitBreaker'];
const configFile = writeConfig({ policies: { inference: { locks: Object.fromEntries(LOCKS.map((l) => [l, { mode: 'off' }])) } } });
const MESSAGE = 'I loved the concert in Berlin on 14 June 2025, although the $180 tickets were far too expensive. Mail me at fan@example.com #music';
const body = (extra) => JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: MESSAGE }], max_tokens: 64, ...extra });
const post = (url, extra = {}) => ({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: body(extra) });

console.log(`bench:inference — autocannon ${CONNECTIONS} connections, ${SECONDS} s per run, after a warm-up; no Redis; all locks off`);
const fake = await spawnFakeOpenAI({ FAKE_CHUNK_DELAY_MS: '0' });
const rows = [];
try {
  const direct = summary(await measure(post(`${fake.url}/chat/completions`)));
  const directStream = summary(await measure(post(`${fake.url}/chat/completions`, { stream: true })));
  rows.push({ backend: 'fake upstream, called directly', adapter: '-', mode: 'json', ...direct, '÷ direct': 1 });
  rows.push({ backend: 'fake upstream, called directly', adapter: '-', mode: 'stream', ...directStream, '÷ direct': 1 });
  for (const adapter of ['express', 'fastify']) {
    const local = await startApp({ HTTP_ADAPTER: adapter, CONFIG_FILE: configFile });
    const proxy = await startApp({ HTTP_ADAPTER: adapter, CONFIG_FILE: configFile, INFERENCE_UPSTREAM_URL: fake.url });
    try {
      const check = await cannon({ ...post(`${local.url}/v1/inference`), amount: 1, connections: 1 });
      if (check.non2xx) throw new Error(`local model answered non-2xx on ${adapter}`);
      rows.push({ backend: 'local demo model', adapter, mode: 'json', ...summary(await measure(post(`${local.url}/v1/inference`))), '÷ direct': '' });
      rows.push({ backend: 'local demo model', adapter, mode: 'stream', ...summary(await measure(post(`${local.url}/v1/inference`, { stream: true }))), '÷ direct': '' });
      const pj = summary(await measure(post(`${proxy.url}/v1/inference`)));
      const ps = summary(await measure(post(`${proxy.url}/v1/inference`, { stream: true })));
      rows.push({ backend: 'upstream proxy → fake', adapter, mode: 'json', ...pj, '÷ direct': +(pj.reqPerSec / direct.reqPerSec).toFixed(3) });
      rows.push({ backend: 'upstream proxy → fake', adapter, mode: 'stream', ...ps, '÷ direct': +(ps.reqPerSec / directStream.reqPerSec).toFixed(3) });
    } finally {
      await local.stop();
      await proxy.stop();
    }
  }
} finally {
  await fake.stop();
}
table(rows);
