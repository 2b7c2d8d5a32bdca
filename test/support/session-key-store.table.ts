/**
 * THE table of the session key stores (deny set + nonce claim in one call):
 * every case runs against the memory store (unit ring) and the Redis store
 * (integration ring, a real redis-server).
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { SessionKeyStore } from '../../src/locks/signature/session-keys/session-key-store.js';

export interface SessionKeyStoreHarness {
  store: SessionKeyStore;
  /** Lets `ms` pass (a manual clock, or real waiting for Redis TTLs). */
  pass(ms: number): Promise<void>;
}

const keyId = (): string =>
  `sk1.app-t.dXNlcg.1800000000.1800000600.search.${randomBytes(12).toString('base64url')}`;
const nonce = (): string => randomBytes(16).toString('base64url');

export function runSessionKeyStoreTable(make: () => Promise<SessionKeyStoreHarness>): void {
  it('should claim a fresh nonce once, and call the second use a replay', async () => {
    const { store } = await make();
    const [k, n] = [keyId(), nonce()];
    expect(await store.claim('app-t', n, 60_000, k)).toBe('fresh');
    expect(await store.claim('app-t', n, 60_000, k)).toBe('replayed');
    expect(await store.claim('app-t', nonce(), 60_000, k)).toBe('fresh');
  });

  it('should refuse a denied key without burning the nonce, and only that key', async () => {
    const { store } = await make();
    const [denied, other, n] = [keyId(), keyId(), nonce()];
    expect(await store.denied(denied)).toBe(false);
    await store.deny(denied, 60_000);
    expect(await store.denied(denied)).toBe(true);
    expect(await store.claim('app-t', n, 60_000, denied)).toBe('revoked');
    expect(await store.claim('app-t', nonce(), 60_000, other)).toBe('fresh');
    expect(await store.claim('app-t', n, 60_000, other)).toBe('fresh');
  });

  it('should forget a deny entry when the key would have expired anyway', async () => {
    const { store, pass } = await make();
    const k = keyId();
    await store.deny(k, 150);
    expect(await store.claim('app-t', nonce(), 60_000, k)).toBe('revoked');
    await pass(400);
    expect(await store.denied(k)).toBe(false);
    expect(await store.claim('app-t', nonce(), 60_000, k)).toBe('fresh');
  });
}
