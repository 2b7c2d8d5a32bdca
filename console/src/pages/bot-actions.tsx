import { ConfirmButton } from '../components/bits.js';
import { ApiError, seg } from '../lib/api.js';
import { useConsole } from '../lib/context.js';
import type { BotState, BotView } from '../lib/telegram.js';

/**
 * What an admin can do to one bot's sending, each after an inline "Yes": pause it (state disabled: its
 * chats go to the scope's other bots, pinned jobs wait), resume it, or end its cooldown now (its waiting
 * jobs go at once). A revoked bot comes back by a token rotation.
 */
export function BotActions({ bot, onDone }: { bot: BotView; onDone: () => void }) {
  const { api, notify } = useConsole();

  const set = async (state: BotState, done: string) => {
    try {
      await api.put(`/admin/telegram/bots/${seg(bot.id)}/state`, { state, reason: 'console' });
      notify(`${bot.id}: ${done}`);
      onDone();
    } catch (err) {
      notify(`${bot.id}: ${err instanceof ApiError ? err.message : String(err)}`, 'error');
    }
  };

  return (
    <span class="row">
      {bot.state === 'cooldown' ? (
        <ConfirmButton
          label="Lift cooldown"
          confirm={`End ${bot.id}'s cooldown now? Its waiting jobs are sent at once.`}
          onConfirm={() => void set('active', 'cooldown lifted')}
        />
      ) : null}
      {bot.state === 'active' || bot.state === 'cooldown' ? (
        <ConfirmButton
          label="Pause"
          danger
          confirm={`Stop sending through ${bot.id}? Its chats go to other bots of its scope.`}
          onConfirm={() => void set('disabled', 'paused')}
        />
      ) : null}
      {bot.state === 'disabled' ? (
        <ConfirmButton
          label="Resume"
          confirm={`Let ${bot.id} send again?`}
          onConfirm={() => void set('active', 'resumed')}
        />
      ) : null}
    </span>
  );
}
