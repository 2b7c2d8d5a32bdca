import { StateBadge } from '../components/bits.js';
import { fmtInt, fmtRatio, fmtTime } from '../lib/format.js';
import type { BloomBuildInfo } from '../lib/types.js';

/** One build of a Bloom filter: version, items, false-positive rates, fill ratio. */
export function BuildFacts({
  title,
  build,
  compact,
}: {
  title: string;
  build: BloomBuildInfo | null;
  compact?: boolean;
}) {
  if (!build) return <p class="muted">{title}: none built yet.</p>;
  const overTarget =
    build.liveFp !== undefined && build.liveFp !== null && build.liveFp > 2 * build.targetFp;
  return (
    <dl class={`facts ${compact ? 'compact' : ''}`} aria-label={title}>
      <dt>{title}</dt>
      <dd>
        <strong data-testid="bloom-version">v{build.version}</strong> · {fmtTime(build.builtAt)} ·{' '}
        {build.source}
        {build.stale ? <StateBadge state="stale" tone="warn" /> : null}
      </dd>
      <dt>Items</dt>
      <dd>
        {fmtInt(build.items)}
        {build.addedKeys ? ` (+${fmtInt(build.addedKeys)} added since)` : ''}
      </dd>
      <dt>False positives</dt>
      <dd>
        target {fmtRatio(build.targetFp)} · measured {fmtRatio(build.measuredFp)}
        {build.liveFp !== undefined ? <> · live {fmtRatio(build.liveFp)}</> : null}
        {overTarget ? <StateBadge state="over 2× target" tone="bad" /> : null}
      </dd>
      {!compact && build.fillRatio !== undefined ? (
        <>
          <dt>Fill ratio</dt>
          <dd>
            <meter
              min={0}
              max={1}
              low={0.5}
              high={0.6}
              optimum={0.3}
              value={build.fillRatio}
              aria-label="Fill ratio"
            />{' '}
            {fmtRatio(build.fillRatio)}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
