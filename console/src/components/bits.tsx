import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { LockMode } from '../lib/types.js';

/** A lock mode as a coloured word (never colour alone: the word is the value). */
export function ModeBadge({ mode }: { mode: LockMode | string }) {
  return <span class={`badge mode-${mode}`}>{mode}</span>;
}

/** A state word (breaker phases, app states) in a neutral or coloured badge. */
export function StateBadge({ state, tone }: { state: string; tone?: 'ok' | 'warn' | 'bad' }) {
  return <span class={`badge tone-${tone ?? 'neutral'}`}>{state.replace(/_/g, ' ')}</span>;
}

/** Problems of a refused change, read out by screen readers when they appear. */
export function Problems({ items }: { items: readonly string[] }) {
  if (items.length === 0) return null;
  return (
    <ul class="problems" role="alert">
      {items.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

export function Card({
  title,
  actions,
  children,
  id,
}: {
  title: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  id?: string;
}) {
  return (
    <section class="card" id={id} aria-label={typeof title === 'string' ? title : undefined}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions ? <div class="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** A button that asks once more before it acts (no modal dialog: keyboard and screen-reader friendly). */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  disabled,
  danger,
}: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  disabled?: boolean;
  danger?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        class={danger ? 'danger' : ''}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirm}>
      <span>{confirm}</span>
      <button
        type="button"
        class={danger ? 'danger' : 'primary'}
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        No
      </button>
    </span>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A route list that stays short: the first few, the rest behind a disclosure. */
export function RouteList({ routes, fallback }: { routes: readonly string[]; fallback?: string }) {
  if (routes.length === 0) return fallback ? <small class="routes">{fallback}</small> : null;
  const head = routes.slice(0, 3);
  const rest = routes.slice(3);
  return (
    <small class="routes">
      {head.join(', ')}
      {rest.length > 0 ? (
        <details>
          <summary>{rest.length} more</summary>
          {rest.join(', ')}
        </details>
      ) : null}
    </small>
  );
}
