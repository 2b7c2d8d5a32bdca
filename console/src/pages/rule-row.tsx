import type { JSX } from 'preact';
import { budgetText, type RuleDraft } from '../lib/rules.js';

interface Props {
  id: string;
  index: number;
  rule: RuleDraft;
  dims: readonly string[];
  /** Problems by field key (`rules.<i>.<field>`). */
  problems: Record<string, string[]>;
  onChange: (field: keyof RuleDraft, value: string) => void;
  onRemove: () => void;
}

/** One editable rule; a field's problems appear right under it and are tied to it for screen readers. */
export function RuleRow({ id, index, rule, dims, problems, onChange, onRemove }: Props) {
  const err = (field: string): string[] => [
    ...(problems[`rules.${index}.${field}`] ?? []),
    ...(field === 'name' ? (problems[`rules.${index}`] ?? []) : []),
  ];
  const cell = (field: keyof RuleDraft, input: (a: Record<string, unknown>) => JSX.Element) => {
    const msgs = err(field);
    const errId = `${id}-${field}-err`;
    return (
      <td>
        {input({
          id: `${id}-${field}`,
          'aria-label': `Rule ${index + 1} ${field}`,
          'aria-invalid': msgs.length > 0 ? true : undefined,
          'aria-describedby': msgs.length > 0 ? errId : undefined,
          'data-testid': `rule-${id}-${field}`,
        })}
        {msgs.length > 0 ? (
          <span class="field-error" id={errId} data-testid={`rule-${id}-${field}-error`}>
            {msgs.join('; ')}
          </span>
        ) : null}
      </td>
    );
  };
  const text = (field: keyof RuleDraft, size: number, placeholder = '') =>
    cell(field, (a) => (
      <input
        {...a}
        type="text"
        size={size}
        placeholder={placeholder}
        value={rule[field] as string}
        onInput={(e) => onChange(field, e.currentTarget.value)}
      />
    ));
  const select = (field: keyof RuleDraft, options: readonly string[], blank?: string) =>
    cell(field, (a) => (
      <select
        {...a}
        value={rule[field] as string}
        onChange={(e) => onChange(field, e.currentTarget.value)}
      >
        {blank !== undefined ? <option value="">{blank}</option> : null}
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    ));
  const extra = Object.keys(rule.rest);
  const budget = budgetText(rule);
  return (
    <tr>
      {text('name', 10)}
      {select('dimension', dims)}
      {text('capacity', 7)}
      {text('rate', 8, '10/s')}
      {select('mode', ['enforce', 'shadow'], '(enforce)')}
      {select('algorithm', ['gcra', 'token-bucket', 'concurrency', 'tokens'], '(gcra)')}
      {text('cost', 4, '—')}
      <td>
        {budget !== undefined ? (
          <small data-testid={`rule-${id}-budget`}>spend budget {budget} </small>
        ) : null}
        {extra.length > 0 ? <small class="muted">also: {extra.join(', ')} </small> : null}
        <button
          type="button"
          class="link"
          onClick={onRemove}
          aria-label={`Remove rule ${index + 1}`}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}
