import { describe, expect, it } from 'vitest';
import { InferenceError } from '../inference.errors.js';
import { MAX_MODELS, parseModelList } from './model-list.js';

describe(parseModelList.name, () => {
  it('should keep only the OpenAI model fields of each entry', () => {
    const text = JSON.stringify({
      object: 'list',
      data: [
        { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system', secret: 'x' },
        { id: 'local-llama' },
      ],
      extra: 'dropped',
    });
    expect(parseModelList(text)).toEqual({
      object: 'list',
      data: [
        { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' },
        { id: 'local-llama', object: 'model', created: 0, owned_by: 'upstream' },
      ],
    });
  });

  it('should drop entries without a usable id and odd field values', () => {
    const text = JSON.stringify({
      data: [
        null,
        'gpt',
        { id: '' },
        { id: 42 },
        { id: 'x'.repeat(257) },
        { id: 'ok', created: -1, owned_by: { evil: true } },
      ],
    });
    expect(parseModelList(text).data).toEqual([
      { id: 'ok', object: 'model', created: 0, owned_by: 'upstream' },
    ]);
  });

  it(`should pass on at most ${MAX_MODELS} models`, () => {
    const data = Array.from({ length: MAX_MODELS + 5 }, (_, i) => ({ id: `m${i}` }));
    expect(parseModelList(JSON.stringify({ data })).data).toHaveLength(MAX_MODELS);
  });

  it.each([
    ['not JSON', '<html>', 'the upstream model list is not valid JSON'],
    ['no data list', '{"object":"list"}', 'the upstream answer is not a model list'],
    ['an array', '[]', 'the upstream answer is not a model list'],
  ])('should fail the call (502) for %s', (_what, text, detail) => {
    let err: unknown;
    try {
      parseModelList(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InferenceError);
    expect((err as InferenceError).problem).toMatchObject({
      status: 502,
      error: 'upstream_error',
      detail,
    });
  });
});
