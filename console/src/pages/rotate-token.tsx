import { useState } from 'preact/hooks';
import { Card, Problems } from '../components/bits.js';
import { ApiError, seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import type { BotView } from '../lib/telegram.js';

/**
 * Token rotation: the service reads the bot's token again from its file or secret store after
 * draining the sends in flight. The token is never typed here nor shown: only fingerprints.
 */
export function RotateToken({ bots, onDone }: { bots: readonly BotView[]; onDone: () => void }) {
  const { api, notify } = useConsole();
  const [bot, setBot] = useState(bots[0]?.id ?? '');
  const [drain, setDrain] = useState('15');
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);

  const submit = async (e: Event) => {
    e.preventDefault();
    const seconds = Number(drain);
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > 120) {
      setProblems(['Drain: a number of seconds from 0 to 120']);
      return;
    }
    setProblems([]);
    setBusy(true);
    try {
      const v = await api.post<BotView & { previous: string }>(
        `/admin/telegram/bots/${seg(bot)}/rotate`,
        { drainMs: Math.round(seconds * 1000) },
      );
      notify(`${bot}: token rotated (${v.previous} → ${v.token})`);
      onDone();
    } catch (err) {
      setProblems(
        err instanceof ApiError ? (err.problem.problems ?? [err.message]) : [String(err)],
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Rotate a token">
      <p class="muted">
        Put the new token in the bot's token file (or secret store) first. Rotation stops new sends
        of the bot, waits for those in flight, reads the token again and resumes; jobs wait in their
        queues meanwhile. Only the token's fingerprint is ever shown.
      </p>
      <form class="row" onSubmit={(e) => void submit(e)}>
        <label for="rotate-bot">Bot</label>
        <select id="rotate-bot" value={bot} onChange={(e) => setBot(e.currentTarget.value)}>
          {bots.map((b) => (
            <option key={b.id} value={b.id}>
              {b.id}
            </option>
          ))}
        </select>
        <label for="rotate-drain">Drain (seconds)</label>
        <input
          id="rotate-drain"
          type="number"
          min={0}
          max={120}
          value={drain}
          onInput={(e) => setDrain(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy || !bot}>
          {busy ? 'Rotating…' : 'Rotate token'}
        </button>
      </form>
      <Problems items={problems} />
    </Card>
  );
}
