// bench: tokens — what sizing a chat request for its token budgets costs on the admission path (issue 31).
// Side by side, in one run, per prompt: counting its tokens with the model's tokenizer (gpt-tokenizer, the
// inference module's promptTokens: o200k_base, hostile runs cut, 16 KB budget) vs its UTF-8 byte length (the
// cheapest upper bound, no tokenizer), and the first load of each encoding.
// Run `npm run build` first (imports dist/). BENCH_SECONDS (default 5) is split over the prompts.
import { ROOT, table } from './lib.mjs';

const imp = (p) => import(`${ROOT}dist/src/${p}`);
const { promptTokens, encodingOf } = await imp('inference/tokens/token-count.js');

const words = 'The quick brown fox jumps over the lazy dog while we count tokens for a budget. ';
const PROMPTS = [
  [
    'typical chat (system + user, ~1 KB)',
    [
      { role: 'system', content: 'You are a helpful assistant. Answer briefly and cite sources.' },
      { role: 'user', content: words.repeat(11) },
    ],
  ],
  ['long prose (16 KB)', [{ role: 'user', content: words.repeat(200) }]],
  ['CJK (8 KB)', [{ role: 'user', content: '漢字仮名交じり文'.repeat(1024) }]],
  ['hostile run (32 KB, one letter)', [{ role: 'user', content: 'x'.repeat(32_768) }]],
  [
    'hostile base64 (64 x 32 KB)',
    Array.from({ length: 64 }, (_, i) => ({
      role: 'user',
      content: Buffer.alloc(24_576, i).toString('base64'),
    })),
  ],
];

const load = {};
for (const enc of ['o200k_base', 'cl100k_base']) {
  const t0 = performance.now();
  promptTokens(enc === 'o200k_base' ? 'gpt-4o' : 'gpt-4', [{ role: 'user', content: 'warm' }], 1);
  load[enc] = performance.now() - t0;
}
encodingOf('gpt-4o');

const budgetMs = (Number(process.env.BENCH_SECONDS ?? 5) * 1000) / PROMPTS.length / 2;
/** Calls of fn per second, over about `budgetMs`. */
function rate(fn) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < budgetMs) {
    fn();
    n++;
  }
  return { perCallUs: ((performance.now() - t0) * 1000) / n };
}

// Warm-up (JIT, the tokenizer's merge cache on other text): a second of mixed prompts.
for (const t0 = performance.now(); performance.now() - t0 < 1000; )
  promptTokens('gpt-4o', [{ role: 'user', content: words.repeat(5) + Math.random() }], 1);

const rows = [];
for (const [name, messages] of PROMPTS) {
  let tokens = 0;
  const tok = rate(() => (tokens = promptTokens('gpt-4o', messages, 1)));
  let bytes = 0;
  const byt = rate(() => {
    bytes = 0;
    for (const m of messages) bytes += Buffer.byteLength(m.content, 'utf8') + 4;
  });
  rows.push({
    prompt: name,
    tokens,
    'utf-8 bound': bytes,
    'tokenizer µs/call': tok.perCallUs.toFixed(1),
    'bytes µs/call': byt.perCallUs.toFixed(2),
    'tokenizer ÷ bytes': (tok.perCallUs / byt.perCallUs).toFixed(0),
  });
}
console.log(
  `first load: o200k_base ${load.o200k_base.toFixed(0)} ms, cl100k_base ${load.cl100k_base.toFixed(0)} ms`,
);
table(rows);
