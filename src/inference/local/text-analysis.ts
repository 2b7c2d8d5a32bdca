import winkNLP, { ItemToken, WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/** What the demo model learns from a message (wink-nlp, English lite model). */
export interface TextAnalysis {
  /** wink-nlp tokens (words, numbers, punctuation, emoji…). */
  tokens: number;
  sentences: number;
  /** Sentiment score from -1 (very negative) to +1 (very positive). */
  sentiment: number;
  label: 'positive' | 'negative' | 'neutral';
  /** Named entities: dates, times, money, numbers, e-mails, URLs, hashtags, mentions, emoji. */
  entities: { value: string; type: string }[];
  /** Most frequent content words (nouns, proper nouns, verbs, adjectives), most frequent first. */
  keywords: string[];
}

/** A score within ±NEUTRAL_BAND counts as neutral. */
const NEUTRAL_BAND = 0.05;
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ']);

let nlp: WinkMethods | undefined;

/** Loads the wink model (≈ 100 ms once); called at boot so the first request does not pay for it. */
export function loadLanguageModel(): WinkMethods {
  nlp ??= winkNLP(model);
  return nlp;
}

/** Reads `text` with wink-nlp: tokens, sentences, sentiment, entities and keywords. Real CPU work, O(length). */
export function analyzeText(text: string, maxKeywords = 5): TextAnalysis {
  const w = loadLanguageModel();
  const its = w.its;
  const doc = w.readDoc(text);
  const sentiment = Math.round((doc.out(its.sentiment) as unknown as number) * 1000) / 1000;
  const entities = (
    doc.entities().out(its.detail) as unknown as { value: string; type: string }[]
  ).map((e) => ({ value: e.value, type: e.type }));
  const counts = new Map<string, number>();
  doc.tokens().each((t: ItemToken) => {
    if (t.out(its.stopWordFlag) || !CONTENT_POS.has(t.out(its.pos))) return;
    const word = t.out(its.normal);
    if (word.length < 2) return;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  });
  const keywords = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, maxKeywords)
    .map(([word]) => word);
  return {
    tokens: doc.tokens().length(),
    sentences: doc.sentences().length(),
    sentiment,
    label:
      sentiment > NEUTRAL_BAND ? 'positive' : sentiment < -NEUTRAL_BAND ? 'negative' : 'neutral',
    entities,
    keywords,
  };
}
