import { createRequire } from 'node:module';

/**
 * Token counts with a real tokenizer (gpt-tokenizer: pure JS, its encodings ship in the package, nothing is
 * downloaded): o200k_base for gpt-4o, gpt-4.1, gpt-5 and the o-series, cl100k_base for gpt-4, gpt-3.5 and the
 * embeddings; any other model gets o200k_base (the newest, closest to today's BPE vocabularies) and the caller
 * multiplies by a safety factor (docs/inference.md#token-budgets). o200k_base is loaded at boot (warmTokenizer),
 * cl100k_base on first use.
 */
export type Encoding = 'o200k_base' | 'cl100k_base';

interface Tokenizer {
  countTokens(text: string): number;
}

const O200K = /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o[1-9](-|$)|gpt-oss)/;
const CL100K = /^(gpt-4|gpt-3\.5|text-embedding-(ada-002|3))/;

/** The encoding of a model name, and whether it is an OpenAI model whose encoding is known (no safety factor). */
export function encodingOf(model: string): { encoding: Encoding; exact: boolean } {
  const m = model.toLowerCase().replace(/^openai\//, '');
  if (O200K.test(m)) return { encoding: 'o200k_base', exact: true };
  if (CL100K.test(m)) return { encoding: 'cl100k_base', exact: true };
  return { encoding: 'o200k_base', exact: false };
}

const load = createRequire(import.meta.url);
const loaded = new Map<Encoding, Tokenizer>();

/** The encoding's tokenizer, loaded (synchronously, from the package) the first time it is asked for. */
function tokenizer(encoding: Encoding): Tokenizer {
  let t = loaded.get(encoding);
  if (t === undefined) {
    t = load(`gpt-tokenizer/encoding/${encoding}`) as Tokenizer;
    loaded.set(encoding, t);
  }
  return t;
}

/**
 * Loads o200k_base now (the encoding of today's models and of unknown ones): about 1–2 s of one core that the
 * first request would otherwise pay on the event loop, stalling every stream's timers (boot, InferenceModule).
 * cl100k_base stays on first use.
 */
export function warmTokenizer(): void {
  tokenizer('o200k_base');
}

/** True once an encoding is loaded (tests, the first-use cost). */
export function isLoaded(encoding: Encoding): boolean {
  return loaded.has(encoding);
}

/**
 * Longest run without whitespace handed to the tokenizer at once. BPE is superlinear on such runs (a 32 KB run of
 * one letter takes seconds); cut into pieces, each costs little and the sum is an upper bound (merges across a cut
 * are lost, never gained).
 */
const MAX_RUN = 128;
const LONG_RUN = new RegExp(`(\\S{${MAX_RUN},})`);

/**
 * Characters of one request tokenized at most; the rest is counted as its UTF-8 bytes, an upper bound of any
 * byte-level BPE count. Bounds the CPU a hostile prompt costs on the admission path.
 */
export const MAX_TOKENIZED_CHARS = 16_384;

/** A running count over several texts, within the tokenizing budget of one request. */
export class TokenCounter {
  private readonly t: Tokenizer;

  /** `budget`: characters tokenized at most (MAX_TOKENIZED_CHARS for a prompt; more for streamed deltas). */
  constructor(
    encoding: Encoding,
    private budget = MAX_TOKENIZED_CHARS,
  ) {
    this.t = tokenizer(encoding);
  }

  /** Tokens of `text`: exact for plain text, an upper bound for long runs and past the budget. */
  count(text: string): number {
    if (text.length === 0) return 0;
    if (text.length > this.budget) {
      this.budget = 0;
      return Buffer.byteLength(text, 'utf8');
    }
    this.budget -= text.length;
    if (!hasLongRun(text)) return this.t.countTokens(text);
    const parts = text.split(LONG_RUN);
    let n = 0;
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.length === 0) continue;
      if (i % 2 === 0) n += this.t.countTokens(p);
      else
        for (let j = 0; j < p.length; j += MAX_RUN)
          n += this.t.countTokens(p.slice(j, j + MAX_RUN));
    }
    return n;
  }
}

/** True when `text` has a run of MAX_RUN or more characters without whitespace (a scan, cheaper than the regex). */
function hasLongRun(text: string): boolean {
  if (text.length < MAX_RUN) return false;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Whitespace as \s sees it in the common cases: space, tab, CR, LF, VT, FF, NBSP.
    if (c === 32 || (c >= 9 && c <= 13) || c === 160) run = 0;
    else if (++run >= MAX_RUN) return true;
  }
  return false;
}

/** Tokens OpenAI adds per chat message (its role and separators) and to prime the reply. */
const PER_MESSAGE = 4;
const REPLY_PRIMING = 3;

/**
 * The prompt's tokens of a chat request, as OpenAI counts chat messages (content, role and name, plus a few per
 * message and for the reply), with the model's encoding; × `safety` for a model whose encoding is a guess.
 */
export function promptTokens(
  model: string,
  messages: readonly { role?: unknown; content?: unknown; name?: unknown }[],
  safety: number,
): number {
  const { encoding, exact } = encodingOf(model);
  const c = new TokenCounter(encoding);
  let n = REPLY_PRIMING;
  for (const m of messages) {
    n += PER_MESSAGE;
    for (const v of [m.role, m.content, m.name]) if (typeof v === 'string') n += c.count(v);
  }
  return exact ? n : Math.ceil(n * safety);
}
