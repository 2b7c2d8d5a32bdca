import { fmtInt, fmtMs, fmtRelative, fmtTime } from '../lib/format.js';
import type { BreakerStatus } from '../lib/types.js';

const REASONS = {
  errors: 'errors or timeouts over the threshold',
  slow_calls: 'slow calls over the threshold',
  probe_failed: 'a failed probe',
} as const;

/** What a breaker did lately: its policies, since when, its window, in-flight calls and latency. */
export function BreakerFacts({ b, now }: { b: BreakerStatus; now: number }) {
  const st = b.stats;
  return (
    <dl class="facts">
      <dt>Policies</dt>
      <dd>{b.policies.join(', ')}</dd>
      <dt>Since</dt>
      <dd>{b.since ? `${fmtTime(b.since)} (${fmtRelative(Date.parse(b.since), now)})` : '—'}</dd>
      <dt>Window</dt>
      <dd>
        {fmtInt(st.failures)} failures · {fmtInt(st.timeouts ?? 0)} timeouts ·{' '}
        {fmtInt(st.successes)} successes · {fmtInt(st.rejects ?? 0)} refused
      </dd>
      {b.reason ? (
        <>
          <dt>Opened on</dt>
          <dd>{REASONS[b.reason]}</dd>
        </>
      ) : null}
      <dt>In flight</dt>
      <dd>
        {fmtInt(st.inFlight)} of {fmtInt(b.adaptive ? b.adaptive.limit : st.capacity)}
        {b.adaptive ? ` (adaptive, ${b.adaptive.minLimit}–${b.adaptive.maxLimit})` : ''} · admitting{' '}
        {st.admittedPercent ?? 100} %{st.waiting ? ` · ${fmtInt(st.waiting)} waiting` : ''}
      </dd>
      {b.adaptive?.minRttMs !== undefined ? (
        <>
          <dt>Backend latency</dt>
          <dd>
            unloaded {fmtMs(b.adaptive.minRttMs)} · last window{' '}
            {fmtMs(b.adaptive.sampleRttMs ?? null)}
          </dd>
        </>
      ) : null}
      <dt>Latency</dt>
      <dd>
        {b.latency
          ? `p50 ${fmtMs(b.latency.p50Ms)} · p95 ${fmtMs(b.latency.p95Ms)} · p99 ${fmtMs(b.latency.p99Ms)} over ${fmtInt(b.latency.calls)} calls`
          : 'no calls yet'}
      </dd>
      <dt>Since start</dt>
      <dd>
        {fmtInt(st.totalCalls)} calls · {fmtInt(st.totalFailures)} failures ·{' '}
        {fmtInt(st.totalTimeouts)} timeouts
      </dd>
    </dl>
  );
}
