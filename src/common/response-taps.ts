import { Injectable } from '@nestjs/common';

/** One finished response, as a tap sees it: the Node request, the status and a response header reader. */
export interface TappedResponse {
  /** The Node request (its request state is reachable with `requestState`). */
  req: unknown;
  status: number;
  header(name: string): string | undefined;
}

export type ResponseTap = (r: TappedResponse) => void;

/**
 * Listeners of finished responses (http-setup.ts calls them on `finish`, on
 * both adapters), e.g. the app feeding failed answers to the risk scores. A
 * tap must be cheap and never throw; a throwing one is ignored.
 */
@Injectable()
export class ResponseTaps {
  private readonly taps: ResponseTap[] = [];

  add(tap: ResponseTap): void {
    this.taps.push(tap);
  }

  get size(): number {
    return this.taps.length;
  }

  run(r: TappedResponse): void {
    for (const t of this.taps) {
      try {
        t(r);
      } catch {
        // A tap is an observer: it never changes the answer.
      }
    }
  }
}
