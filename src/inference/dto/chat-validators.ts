import { ValidationOptions, ValidateBy } from 'class-validator';

/** At most 4 stop sequences of 1..256 characters, as a string or an array (OpenAI's rule). */
export function IsStopSequences(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStopSequences',
      validator: {
        validate: (v: unknown) => {
          const list = typeof v === 'string' ? [v] : v;
          return (
            Array.isArray(list) &&
            list.length >= 1 &&
            list.length <= 4 &&
            list.every((s) => typeof s === 'string' && s.length >= 1 && s.length <= 256)
          );
        },
        defaultMessage: () =>
          'stop must be a string or an array of 1 to 4 strings of 1-256 characters',
      },
    },
    options,
  );
}

/** The conversation holds at least one message with role "user". */
export function HasUserMessage(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'hasUserMessage',
      validator: {
        validate: (v: unknown) =>
          Array.isArray(v) && v.some((m) => (m as { role?: unknown } | null)?.role === 'user'),
        defaultMessage: () => 'messages must contain at least one message with role "user"',
      },
    },
    options,
  );
}
