/** The quotes product's own data (an in-memory stand-in for its real backend). */
export const QUOTES: Record<string, { author: string; text: string }> = {
  q1: { author: 'Ada Lovelace', text: 'The Analytical Engine weaves algebraic patterns.' },
  q2: {
    author: 'Grace Hopper',
    text: 'The most dangerous phrase is: we have always done it this way.',
  },
  q3: { author: 'Alan Kay', text: 'The best way to predict the future is to invent it.' },
};

/** Backend calls made, for the example's test: junk ids must never get here. */
export const backendCalls: string[] = [];

/** The backend: a lookup that may take a while or fail, like a real one. */
export async function fetchQuote(
  id: string,
): Promise<{ author: string; text: string } | undefined> {
  backendCalls.push(id);
  return QUOTES[id];
}
