import { Empty } from '../components/bits.js';
import { useConsole } from '../lib/context.js';
import { RulesEditor } from './rules-editor.js';

/** The rules of every policy that uses the rate-limit lock, editable in place. */
export function RateLimits() {
  const { config } = useConsole();
  if (!config.installedLocks.includes('rateLimit'))
    return <Empty>The rate-limit lock is not installed in this service.</Empty>;
  const withRules = Object.entries(config.policySet.policies).filter(
    ([, p]) => p.locks.rateLimit !== undefined,
  );
  return (
    <>
      <h1>Rate limits</h1>
      <p class="muted">
        Each rule is a token bucket: <em>capacity</em> is the burst, <em>rate</em> the refill
        (tokens per second, or <code>6/min</code>, <code>10/s</code>, <code>1000/h</code>). Saving
        replaces the policy's rules as one change; the service checks them first and shows what is
        wrong next to the field.
      </p>
      {withRules.length === 0 ? <Empty>No policy has rate-limit rules.</Empty> : null}
      {withRules.map(([name, p]) => (
        <RulesEditor
          key={`${name}:${config.policySet.version}`}
          policy={name}
          slice={p.locks.rateLimit!}
        />
      ))}
    </>
  );
}
