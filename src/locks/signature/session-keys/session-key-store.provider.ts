import type { Clock } from '../../../common/clock.js';
import type { RedisService } from '../../../redis/redis.service.js';
import type { NonceStore } from '../nonce/nonce-store.js';
import type { SignatureSettings } from '../signature.types.js';
import { RedisNonceStore } from '../nonce/redis-nonce.store.js';
import { MemorySessionKeyStore } from './memory-session-key.store.js';
import { RedisSessionKeyStore } from './redis-session-key.store.js';
import type { SessionKeyStore } from './session-key-store.js';

/** Redis when configured (deny set shared by every instance, same slot as the nonces), else memory. */
export function createSessionKeyStore(
  redis: RedisService,
  nonces: NonceStore,
  clock: Clock,
  settings: Pick<SignatureSettings, 'memorySessionKeyDenials'>,
): SessionKeyStore {
  return redis.enabled
    ? new RedisSessionKeyStore(redis, new RedisNonceStore(redis))
    : new MemorySessionKeyStore(clock, nonces, settings.memorySessionKeyDenials);
}
