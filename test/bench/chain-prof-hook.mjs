// Loaded into the app by chain-prof.mjs (`node --import`): SIGUSR2 starts the V8 CPU profiler, the next
// SIGUSR2 stops it and writes the profile to $PROF_OUT, so the profile holds the measured run only
// (not the boot, the Bloom builds or the warm-up, as `--cpu-prof` would). Never shipped.
import inspector from 'node:inspector';
import { writeFileSync } from 'node:fs';

const session = new inspector.Session();
session.connect();
let on = false;
process.on('SIGUSR2', () => {
  on = !on;
  if (on) {
    const interval = Number(process.env.PROF_INTERVAL_US ?? 200);
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval }, () =>
        session.post('Profiler.start'),
      ),
    );
  } else
    session.post('Profiler.stop', (err, r) => {
      if (!err) writeFileSync(process.env.PROF_OUT, JSON.stringify(r.profile));
    });
});
