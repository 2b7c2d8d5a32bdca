// npm run bench: every *.bench.mjs under test/bench, one after the other.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const dir = new URL('.', import.meta.url).pathname;
const only = process.argv.slice(2);
let failed = 0;
for (const f of readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .sort()) {
  if (only.length && !only.some((o) => f.includes(o))) continue;
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, [dir + f], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
