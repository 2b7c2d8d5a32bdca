/**
 * The official OpenAI SDK pointed at a started Rampart app, signing with
 * Rampart's own `createSignedFetch`, and a record of every attempt it sent
 * (the SDK's retries included) as the server answered it.
 */
import OpenAI from 'openai';
import { createSignedFetch, type SignedFetchOptions } from '../../src/sdk/index.js';
import type { RunningApp } from './app.js';

/** One HTTP attempt the SDK made. */
export interface Attempt {
  method: string;
  path: string;
  /** X-Nonce, or the `nonce` parameter of Signature-Input (RFC 9421). */
  nonce: string | undefined;
  /** The SDK's own attempt counter (`X-Stainless-Retry-Count`). */
  retryCount: string | undefined;
  status: number;
  /** The `error` code of a problem answer (a string, or `error.code` in the OpenAI style). */
  code: string | undefined;
  retryAfter: string | null;
  /** When the attempt was sent and answered (performance.now(), ms). */
  sentAt: number;
  answeredAt: number;
}

function nonceOf(h: Headers): string | undefined {
  return h.get('x-nonce') ?? /;nonce="([^"]+)"/.exec(h.get('signature-input') ?? '')?.[1];
}

async function codeOf(res: Response): Promise<string | undefined> {
  if (res.ok) return undefined;
  const body = (await res.clone().json()) as { error?: string | { code?: string } };
  return typeof body.error === 'string' ? body.error : body.error?.code;
}

/** A fetch that sends with the global fetch and records each attempt (`onAttempt` sees each as it is answered). */
export function recordingFetch(onAttempt?: (a: Attempt, all: readonly Attempt[]) => void): {
  fetch: (url: URL, init?: RequestInit) => Promise<Response>;
  attempts: Attempt[];
} {
  const attempts: Attempt[] = [];
  return {
    attempts,
    async fetch(url, init = {}) {
      const headers = new Headers(init.headers);
      const sentAt = performance.now();
      const res = await fetch(url, init);
      const attempt: Attempt = {
        method: init.method ?? 'GET',
        path: url.pathname,
        nonce: nonceOf(headers),
        retryCount: headers.get('x-stainless-retry-count') ?? undefined,
        status: res.status,
        code: await codeOf(res).catch(() => undefined),
        retryAfter: res.headers.get('retry-after'),
        sentAt,
        answeredAt: performance.now(),
      };
      attempts.push(attempt);
      onAttempt?.(attempt, attempts);
      return res;
    },
  };
}

/** An OpenAI client for `app` (baseURL `<app>/v1`), signing every attempt; `attempts` records them. */
export function openAiClient(
  app: RunningApp,
  creds: SignedFetchOptions,
  opts: { maxRetries?: number; onAttempt?: (a: Attempt, all: readonly Attempt[]) => void } = {},
): { client: OpenAI; attempts: Attempt[] } {
  const rec = recordingFetch(opts.onAttempt);
  const client = new OpenAI({
    baseURL: `${app.url}/v1`,
    apiKey: 'unused-by-rampart',
    fetch: createSignedFetch(creds, rec.fetch),
    maxRetries: opts.maxRetries ?? 2,
    timeout: 20_000,
  });
  return { client, attempts: rec.attempts };
}

/** A chat request in the SDK's types. */
export function chatParams(
  content: string,
  extra: Partial<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming> = {},
): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  return { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra };
}
