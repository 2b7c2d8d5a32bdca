import { useState } from 'preact/hooks';
import { Card, ModeBadge, Problems } from '../components/bits.js';
import { ApiError, seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import { PlacedProblems, placeProblems } from '../lib/problems.js';
import {
  DIMENSIONS,
  RuleDraft,
  emptyDraft,
  fromDraft,
  ruleFieldKeys,
  toDraft,
} from '../lib/rules.js';
import type { ChangeAnswer, LockSlice } from '../lib/types.js';
import { RuleRow } from './rule-row.js';

const FAIL_MODES = ['', 'local', 'open', 'closed', 'queue'];

/** One policy's rate-limit rules and fail mode, saved as one JSON Merge Patch of the slice. */
export function RulesEditor({ policy, slice }: { policy: string; slice: LockSlice }) {
  const { api, reloadConfig, notify } = useConsole();
  const initial = (): RuleDraft[] =>
    ((slice.rules as Record<string, unknown>[] | undefined) ?? []).map(toDraft);
  const [rules, setRules] = useState<RuleDraft[]>(initial);
  const [failMode, setFailMode] = useState(String(slice.failMode ?? ''));
  const [placed, setPlaced] = useState<PlacedProblems>({ fields: {}, other: [] });
  const [busy, setBusy] = useState(false);
  const dims = [...new Set([...DIMENSIONS, ...rules.map((r) => r.dimension)])];

  const update = (i: number, field: keyof RuleDraft, value: string) =>
    setRules((rs) => rs.map((r, j) => (j === i ? { ...r, [field]: value } : r)));

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const options: Record<string, unknown> = { rules: rules.map(fromDraft) };
    if (failMode && failMode !== String(slice.failMode ?? '')) options.failMode = failMode;
    try {
      const a = await api.patch<ChangeAnswer>(
        `/admin/policies/${seg(policy)}/locks/rateLimit/options`,
        { options },
      );
      setPlaced({ fields: {}, other: [] });
      notify(
        a.changed ? `${policy}: rules saved (policy v${a.version})` : `${policy}: nothing changed`,
      );
      reloadConfig();
    } catch (err) {
      const problems =
        err instanceof ApiError ? (err.problem.problems ?? [err.message]) : [String(err)];
      setPlaced(
        placeProblems(problems, `policies.${policy}.locks.rateLimit`, ruleFieldKeys(rules.length)),
      );
    } finally {
      setBusy(false);
    }
  };

  const listLevel = [
    ...(placed.fields.rules ?? []),
    ...(placed.fields.failMode ?? []),
    ...placed.other,
  ];
  return (
    <Card
      id={`rl-${policy}`}
      title={
        <>
          {policy} <ModeBadge mode={slice.override?.mode ?? slice.mode} />
        </>
      }
    >
      <form onSubmit={(e) => void save(e)} aria-label={`Rate-limit rules of ${policy}`}>
        <div class="table-wrap">
          <table class="rules">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Dimension</th>
                <th scope="col">Capacity</th>
                <th scope="col">Rate</th>
                <th scope="col">Mode</th>
                <th scope="col">Algorithm</th>
                <th scope="col">Cost</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r, i) => (
                <RuleRow
                  key={i}
                  id={`${policy}-${i}`}
                  index={i}
                  rule={r}
                  dims={dims}
                  problems={placed.fields}
                  onChange={(f, v) => update(i, f, v)}
                  onRemove={() => setRules((rs) => rs.filter((_, j) => j !== i))}
                />
              ))}
            </tbody>
          </table>
        </div>
        <Problems items={listLevel} />
        <div class="row">
          <button type="button" onClick={() => setRules((rs) => [...rs, emptyDraft()])}>
            Add rule
          </button>
          <label for={`${policy}-fail`}>When Redis is down</label>
          <select
            id={`${policy}-fail`}
            value={failMode}
            onChange={(e) => setFailMode(e.currentTarget.value)}
          >
            {FAIL_MODES.map((m) => (
              <option key={m} value={m}>
                {m === '' ? '(default: local)' : m}
              </option>
            ))}
          </select>
          <span class="spacer" />
          <button
            type="button"
            onClick={() => (setRules(initial()), setPlaced({ fields: {}, other: [] }))}
          >
            Reset
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Save rules
          </button>
        </div>
      </form>
    </Card>
  );
}
