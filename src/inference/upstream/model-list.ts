import { isRecord } from '../../common/is-record.js';
import { upstreamFailed } from '../inference.errors.js';
import type { ModelEntry, ModelList } from '../openai.types.js';

/** Most models passed on from an upstream's list. */
export const MAX_MODELS = 1_000;
const MAX_ID_CHARS = 256;

/**
 * Reads an upstream's `GET /models` answer (`{data: [{id, created?, owned_by?}, …]}`)
 * into the OpenAI model list, keeping only those fields, checked: entries
 * without a usable id are dropped, at most {@link MAX_MODELS}. Anything that
 * is not such a list is a failed call (502).
 */
export function parseModelList(text: string): ModelList {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw upstreamFailed('the upstream model list is not valid JSON');
  }
  if (!isRecord(answer) || !Array.isArray(answer.data))
    throw upstreamFailed('the upstream answer is not a model list');
  const data: ModelEntry[] = [];
  for (const m of answer.data as unknown[]) {
    if (data.length >= MAX_MODELS) break;
    if (!isRecord(m) || typeof m.id !== 'string' || m.id === '' || m.id.length > MAX_ID_CHARS)
      continue;
    data.push({
      id: m.id,
      object: 'model',
      created:
        typeof m.created === 'number' && Number.isSafeInteger(m.created) && m.created >= 0
          ? m.created
          : 0,
      owned_by:
        typeof m.owned_by === 'string' && m.owned_by.length <= MAX_ID_CHARS
          ? m.owned_by
          : 'upstream',
    });
  }
  return { object: 'list', data };
}
