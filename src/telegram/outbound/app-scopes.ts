import type { TelegramBots } from '../telegram-bots.js';

/** The scopes `app` may send through: those whose every bot lets it (a bot without `apps` lets every app). */
export function scopesOf(bots: TelegramBots, app: string | undefined): Set<string> {
  const denied = new Set<string>();
  for (const b of bots.all())
    if (b.apps !== undefined && (app === undefined || !b.apps.includes(app))) denied.add(b.scope);
  return new Set(
    bots
      .all()
      .map((b) => b.scope)
      .filter((sc) => !denied.has(sc)),
  );
}
