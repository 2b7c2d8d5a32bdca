import type { Server, ServerResponse } from 'node:http';

/** The most listeners of each watched event that any one response of a server held at once. */
export interface ListenerWatch {
  readonly max: Readonly<Record<'close' | 'error' | 'drain' | 'finish', number>>;
  readonly responses: number;
}

const EVENTS = ['close', 'error', 'drain', 'finish'] as const;

/**
 * Watches every response a Node HTTP server makes: each time a listener is added to one, the count of that
 * event's listeners (with the new one) is compared with the highest seen. A leak (a listener added per write
 * or per wait and never removed) shows as a count that grows with the length of the answer; one listener per
 * concern stays a small constant (Node warns at 11).
 */
export function watchListeners(server: Server): ListenerWatch {
  const max: Record<(typeof EVENTS)[number], number> = { close: 0, error: 0, drain: 0, finish: 0 };
  let responses = 0;
  server.prependListener('request', (_req, res: ServerResponse) => {
    responses++;
    res.on('newListener', (event: string | symbol) => {
      if (!(EVENTS as readonly (string | symbol)[]).includes(event)) return;
      const e = event as (typeof EVENTS)[number];
      max[e] = Math.max(max[e], res.listenerCount(e) + 1);
    });
  });
  return {
    max,
    get responses() {
      return responses;
    },
  };
}
