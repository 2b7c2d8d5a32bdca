// Loaded into the app by chain-prof.mjs (`node --import`): SIGUSR2 starts the V8 CPU profiler, the next
// SIGUSR2 stops it and writes the profile to $PROF_OUT (a file), or to $PROF_OUT/<n>.cpuprofile when it is a
// directory (n = 1, 2, … per stop), so the profile holds the measured run only (not the boot, the Bloom builds
// or the warm-up, as `--cpu-prof` would). The sampling interval ($PROF_INTERVAL_US, default 200 µs; V8's own
// default is 1,000) is set before each start and checked after: chain-prof.mjs prints the median interval
// the profile really has. Never shipped.
import inspector from 'node:inspector';
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.env.PROF_OUT;
const interval = Number(process.env.PROF_INTERVAL_US ?? 200);
const session = new inspector.Session();
session.connect();
// An in-process session answers synchronously; a failed step throws here, in the app's log.
const post = (method, params) =>
  session.post(method, params, (err) => {
    if (err) throw new Error(`${method}: ${err.message}`);
  });
let on = false;
let n = 0;
process.on('SIGUSR2', () => {
  on = !on;
  if (on) {
    post('Profiler.enable');
    post('Profiler.setSamplingInterval', { interval });
    post('Profiler.start');
    return;
  }
  session.post('Profiler.stop', (err, r) => {
    if (err) throw err;
    n++;
    const file = statSync(out, { throwIfNoEntry: false })?.isDirectory()
      ? join(out, `${n}.cpuprofile`)
      : out;
    writeFileSync(`${file}.tmp`, JSON.stringify(r.profile));
    renameSync(`${file}.tmp`, file); // whole or absent: the driver polls for it
    post('Profiler.disable');
  });
});
