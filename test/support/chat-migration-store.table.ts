/**
 * THE table of the outbound sender's chat-migration store (a group upgraded to a supergroup: old id → new
 * id, per app). The memory store and the Redis store (a real redis-server) run every case.
 */
import { expect, it } from 'vitest';
import {
  type ChatMigrationStore,
  canMigrate,
  currentChat,
} from '../../src/telegram/outbound/gate/chat-migration.store.js';

let seq = 0;
const group = () => `-${4_000_000 + (process.pid % 1000) * 1000 + ++seq}`;

export function runChatMigrationTable(
  make: () => Promise<ChatMigrationStore>,
  lapse: (ms: number) => Promise<void>,
): void {
  it('should keep a move per app: another app neither reads it nor is moved by it', async () => {
    const m = await make();
    const old = group();
    expect(await m.get('shop', old)).toBeUndefined();
    await m.set('shop', old, '-1009990001', 60_000);
    expect(await m.get('shop', old)).toBe('-1009990001');
    expect(await m.get('other', old)).toBeUndefined();
    expect(await currentChat(m, 'other', old)).toBe(old);
    expect(await currentChat(m, 'shop', old)).toBe('-1009990001');
  });

  it('should let a move lapse after its ttl', async () => {
    const m = await make();
    const old = group();
    await m.set('shop', old, '-1009990002', 50);
    await lapse(120);
    expect(await m.get('shop', old)).toBeUndefined();
  });

  it('should look a move up only for a basic group id', () => {
    expect([canMigrate('-123'), canMigrate('-100123'), canMigrate('123')]).toEqual([
      true,
      false,
      false,
    ]);
  });
}
