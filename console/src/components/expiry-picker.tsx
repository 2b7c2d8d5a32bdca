import { EXPIRY_CHOICES } from '../lib/expiry.js';

interface Props {
  id: string;
  choice: string;
  at: string;
  onChoice: (id: string) => void;
  onAt: (value: string) => void;
  label?: string;
}

/** "How long": permanent, a few durations, or a time the user picks. */
export function ExpiryPicker({ id, choice, at, onChoice, onAt, label = 'How long' }: Props) {
  return (
    <span class="expiry">
      <label for={`${id}-for`}>{label}</label>
      <select id={`${id}-for`} value={choice} onChange={(e) => onChoice(e.currentTarget.value)}>
        {EXPIRY_CHOICES.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
      {choice === 'at' ? (
        <input
          id={`${id}-at`}
          type="datetime-local"
          aria-label="Ends at (local time)"
          value={at}
          onInput={(e) => onAt(e.currentTarget.value)}
        />
      ) : null}
    </span>
  );
}
