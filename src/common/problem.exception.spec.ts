import { HttpException } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { ProblemException } from './problem.exception.js';

/** What Nest's own HttpException#initMessage gives for a class of this name. */
function nestMessage(name: string, response: Record<string, unknown>): string {
  const Named = { [name]: class extends HttpException {} }[name]!;
  return new Named(response, 400).message;
}

class QuotaProblemException extends ProblemException {}

describe(ProblemException.name, () => {
  it("should carry Nest's message: the class name in words, per class", () => {
    expect(ProblemException.fast(401, 'bad_signature', 'x').message).toBe(
      nestMessage('ProblemException', {}),
    );
    expect(new ProblemException(429, 'rate_limited', 'x').message).toBe('Problem Exception');
    expect(new QuotaProblemException(429, 'rate_limited', 'x').message).toBe(
      nestMessage('QuotaProblemException', {}),
    );
  });

  it('should take a `message` field of the problem as its message, as Nest does', () => {
    const e = new ProblemException(400, 'bad', 'x', { message: 'the message' });
    expect(e.message).toBe(nestMessage('ProblemException', { message: 'the message' }));
    expect(e.message).toBe('the message');
  });
});
