import { Injectable } from '@nestjs/common';
import { KeyHasher } from '../../subjects/key-hasher.js';
import { RateLimitPeers } from './rate-limit-peers.service.js';

/** The two hashers of the limiter: keys in Redis (the shared secret) and keys that never leave this process. */
@Injectable()
export class KeyHashers {
  /** Keys that never leave this process (memory store, failMode local). */
  readonly local: KeyHasher;
  private sharedHasher: KeyHasher | undefined;

  constructor(private readonly peers: RateLimitPeers) {
    this.local = new KeyHasher(peers.localSecret);
  }

  /** Keys in Redis: undefined until the shared secret is known (a heartbeat is asked for meanwhile). */
  shared(): KeyHasher | undefined {
    if (!this.sharedHasher && this.peers.sharedSecret)
      this.sharedHasher = new KeyHasher(this.peers.sharedSecret);
    if (!this.sharedHasher) void this.peers.beat();
    return this.sharedHasher;
  }
}
