import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { ChatCompletionRequestDto } from './chat-completion-request.dto.js';

/** Validates like the global ValidationPipe (whitelist, transform). */
async function check(
  plain: Record<string, unknown>,
): Promise<{ dto: ChatCompletionRequestDto; problems: string[] }> {
  const dto = plainToInstance(ChatCompletionRequestDto, plain);
  const errors = await validate(dto, { whitelist: true, forbidUnknownValues: true });
  const flat = (e: (typeof errors)[number], prefix = ''): string[] => [
    ...Object.values(e.constraints ?? {}).map((m) => `${prefix}${m}`),
    ...(e.children ?? []).flatMap((c) => flat(c, `${prefix}${e.property}.`)),
  ];
  return { dto, problems: errors.flatMap((e) => flat(e)) };
}

const ok = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

describe(ChatCompletionRequestDto.name, () => {
  it('should accept a minimal body and fill in max_tokens 256 and stream false', async () => {
    const { dto, problems } = await check(ok);
    expect(problems).toEqual([]);
    expect(dto.max_tokens).toBe(256);
    expect(dto.stream).toBe(false);
  });

  it('should accept every optional field within range', async () => {
    const { problems } = await check({
      ...ok,
      messages: [
        { role: 'system', content: 'be nice' },
        { role: 'user', content: 'x'.repeat(32_768), name: 'ann_1' },
        { role: 'assistant', content: '' },
        { role: 'tool', content: '{}', tool_call_id: 'call_1' },
      ],
      max_tokens: 8192,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 2,
      top_p: 0,
      presence_penalty: -2,
      frequency_penalty: 2,
      stop: ['a', 'b', 'c', 'd'],
      seed: 7,
      user: 'u-1',
    });
    expect(problems).toEqual([]);
  });

  it('should strip fields it does not know, at every level', async () => {
    const { dto } = await check({
      ...ok,
      tools: [{}],
      messages: [{ role: 'user', content: 'hi', extra: 1 }],
    });
    const stripped = plainToInstance(ChatCompletionRequestDto, dto);
    await validate(stripped, { whitelist: true });
    expect(JSON.parse(JSON.stringify(stripped))).toEqual({ ...ok, max_tokens: 256, stream: false });
  });

  it.each([
    [{ ...ok, model: 'm'.repeat(129) }, 'model must be shorter than or equal to 128 characters'],
    [{ ...ok, messages: 'hi' }, 'messages must be an array'],
    [
      { ...ok, messages: [{ role: 'assistant', content: 'x' }] },
      'messages must contain at least one message with role "user"',
    ],
    [
      { ...ok, messages: [{ role: 'user', content: 'a', name: 'has space' }] },
      'messages.0.name must be 1-64 characters of letters, digits, _ or -',
    ],
    [{ ...ok, max_tokens: 1.5 }, 'max_tokens must be an integer number'],
    [{ ...ok, stream: 1 }, 'stream must be a boolean value'],
    [
      { ...ok, stream_options: { include_usage: 'yes' } },
      'stream_options.include_usage must be a boolean value',
    ],
    [
      { ...ok, temperature: Number.NaN },
      'temperature must be a number conforming to the specified constraints',
    ],
    [{ ...ok, top_p: 1.01 }, 'top_p must not be greater than 1'],
    [
      { ...ok, stop: '' },
      'stop must be a string or an array of 1 to 4 strings of 1-256 characters',
    ],
    [
      { ...ok, stop: [] },
      'stop must be a string or an array of 1 to 4 strings of 1-256 characters',
    ],
    [
      { ...ok, stop: [3] },
      'stop must be a string or an array of 1 to 4 strings of 1-256 characters',
    ],
    [{ ...ok, user: 'u'.repeat(257) }, 'user must be shorter than or equal to 256 characters'],
  ])('should reject %j', async (body, message) => {
    const { problems } = await check(body as Record<string, unknown>);
    expect(problems).toContain(message);
  });
});
