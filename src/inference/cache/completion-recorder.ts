import { Injectable } from '@nestjs/common';
import type { AnyRequest } from '../../http/http-context.js';
import type { ChatCompletion } from '../openai.types.js';
import { StreamRecording } from './stream-recording.js';

/**
 * What the deterministic answer cache needs from a streamed call: the key source marks the requests
 * it may cache (`want`), the inference service records their streams (`recording`, `finished`), and
 * the key source takes the whole answer once the call is over (`take`). Entries live as long as
 * their request (a WeakMap: bounded by the requests in flight).
 */
@Injectable()
export class CompletionRecorder {
  private readonly wanted = new WeakMap<object, StreamRecording | null>();
  private readonly finished = new WeakSet<object>();

  /** The cache may keep this request's answer: record its stream. */
  want(req: AnyRequest): void {
    if (!this.wanted.has(req)) this.wanted.set(req, null);
  }

  /** A new recording for a wanted request's stream, or undefined when the cache does not want it. */
  recording(req: AnyRequest): StreamRecording | undefined {
    if (!this.wanted.has(req)) return undefined;
    const r = new StreamRecording();
    this.wanted.set(req, r);
    return r;
  }

  /** The stream's call returned normally and its client stayed to the end. */
  finish(req: AnyRequest): void {
    this.finished.add(req);
  }

  /** The recorded answer of a stream that finished normally, or undefined. */
  take(req: AnyRequest): ChatCompletion | undefined {
    const r = this.wanted.get(req);
    return r && this.finished.has(req) ? r.completion() : undefined;
  }
}
