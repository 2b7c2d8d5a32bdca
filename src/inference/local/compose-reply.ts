import type { TextAnalysis } from './text-analysis.js';

/** Entity types in the order the reply lists them, with how a reader would name them. */
const ENTITY_NAMES: Record<string, string> = {
  DATE: 'date',
  TIME: 'time',
  DURATION: 'duration',
  MONEY: 'amount of money',
  PERCENT: 'percentage',
  CARDINAL: 'number',
  ORDINAL: 'ordinal',
  EMAIL: 'e-mail address',
  URL: 'URL',
  HASHTAG: 'hashtag',
  MENTION: 'mention',
  EMOJI: 'emoji',
};
const MAX_ENTITIES = 8;

/** The demo model's answer: a plain-English reading of the last user message. */
export function composeReply(a: TextAnalysis): string {
  const parts: string[] = [];
  parts.push(
    `I read your message: ${a.tokens} ${a.tokens === 1 ? 'token' : 'tokens'} in ${a.sentences} ${a.sentences === 1 ? 'sentence' : 'sentences'}.`,
  );
  const score = `${a.sentiment >= 0 ? '+' : ''}${a.sentiment.toFixed(2)}`;
  parts.push(`Its tone is ${a.label} (sentiment ${score} on a scale from -1 to +1).`);
  if (a.entities.length > 0) {
    const shown = a.entities
      .slice(0, MAX_ENTITIES)
      .map((e) => `"${e.value}" (${ENTITY_NAMES[e.type] ?? e.type.toLowerCase()})`);
    const more =
      a.entities.length > MAX_ENTITIES ? ` and ${a.entities.length - MAX_ENTITIES} more` : '';
    parts.push(
      `I found ${a.entities.length === 1 ? 'one entity' : `${a.entities.length} entities`}: ${shown.join(', ')}${more}.`,
    );
  } else {
    parts.push('I found no named entities (dates, amounts, numbers, addresses, hashtags…).');
  }
  if (a.keywords.length > 0) parts.push(`Key words: ${a.keywords.join(', ')}.`);
  parts.push(
    '— Rampart local demo model (wink-nlp); set INFERENCE_UPSTREAM_URL for a real language model.',
  );
  return parts.join(' ');
}
