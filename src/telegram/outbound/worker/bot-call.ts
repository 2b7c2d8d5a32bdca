import { Api, GrammyError, HttpError } from 'grammy';

/** What Telegram's answer (or its absence) means for the queue. */
export type CallOutcome =
  | { kind: 'ok'; messageId?: number }
  /** 429: a scheduling order. */
  | { kind: 'retry_after'; seconds: number }
  /** 401: the token is invalid or revoked. */
  | { kind: 'unauthorized'; error: string }
  /** 403: this bot cannot reach this chat (blocked, kicked, never started). */
  | { kind: 'forbidden'; error: string }
  /** 400 with `migrate_to_chat_id`: the group became a supergroup; the chat's id is now `to`. */
  | { kind: 'migrated'; to: string; error: string }
  /** 400 and other 4xx: the request is wrong; retrying changes nothing. */
  | { kind: 'rejected'; error: string }
  /** 5xx, or the request never left (connect, DNS): safe to retry. */
  | { kind: 'retryable'; error: string }
  /** A timeout or a broken connection after the request was sent: it may have been delivered. */
  | { kind: 'ambiguous'; error: string };

/** Errors raised before a byte of the request was sent: retrying cannot duplicate. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function codeOf(e: unknown): string | undefined {
  const o = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const c = o?.code ?? o?.cause?.code;
  return typeof c === 'string' ? c : undefined;
}

/** Calls one Bot API method through grammY and classifies the answer. Never throws. */
export async function callBotApi(
  api: Api,
  method: string,
  payload: Record<string, unknown>,
): Promise<CallOutcome> {
  try {
    const raw = api.raw as unknown as Record<
      string,
      (p: Record<string, unknown>) => Promise<unknown>
    >;
    const result = await raw[method]!(payload);
    const id = (result as { message_id?: unknown } | null)?.message_id;
    return { kind: 'ok', messageId: typeof id === 'number' ? id : undefined };
  } catch (e) {
    if (e instanceof GrammyError) {
      const error = `${e.error_code}: ${e.description}`.slice(0, 200);
      const retry = e.parameters.retry_after;
      if (e.error_code === 429 || retry !== undefined)
        return { kind: 'retry_after', seconds: Math.max(0, retry ?? 1) };
      if (e.error_code === 401) return { kind: 'unauthorized', error };
      if (e.error_code === 403) return { kind: 'forbidden', error };
      if (e.error_code >= 500) return { kind: 'retryable', error };
      const to = e.parameters.migrate_to_chat_id;
      if (Number.isSafeInteger(to)) return { kind: 'migrated', to: String(to), error };
      return { kind: 'rejected', error };
    }
    const inner = e instanceof HttpError ? e.error : e;
    const code = codeOf(inner);
    const error = `${code ?? 'network'}: ${(inner as Error)?.message ?? String(inner)}`.slice(
      0,
      200,
    );
    if (code && NOT_SENT.has(code)) return { kind: 'retryable', error };
    // A body that is not JSON (a proxy's 502 page): the server answered, nothing was delivered.
    if (inner instanceof SyntaxError) return { kind: 'retryable', error };
    return { kind: 'ambiguous', error };
  }
}
