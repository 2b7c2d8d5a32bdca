import { describe, expect, it } from 'vitest';
import { job } from '../../../../test/support/telegram-outbound-stores.table.js';
import { MemoryStoreFullError } from '../../../common/bounded-map.js';
import { MemoryOutboundQueueStore } from './memory-outbound-queue.store.js';

const T0 = 1_800_000_000_000;

describe(`${MemoryOutboundQueueStore.name} bounds`, () => {
  it('should refuse a whole batch that does not fit, keep every job it holds, and take one after retention', async () => {
    const q = new MemoryOutboundQueueStore(60_000, 3);
    const held = [job('1'), job('2'), job('3')];
    expect(await q.enqueue(held, T0)).toEqual(['queued', 'queued', 'queued']);
    await expect(q.enqueue([job('4')], T0)).rejects.toBeInstanceOf(MemoryStoreFullError);
    // A repeated id is still a duplicate (its job was not dropped for room), and costs no room.
    expect(await q.enqueue([held[0]!], T0)).toEqual(['duplicate']);
    expect(await q.depth()).toBe(3);
    // Sent jobs are kept for their retention, then forgotten: room again.
    const { leases } = await q.claim(T0, 30_000, 10);
    for (const l of leases) await q.settle(l, { kind: 'sent', bot: 'b', messageId: 1 }, T0);
    await expect(q.enqueue([job('4')], T0 + 1_000)).rejects.toBeInstanceOf(MemoryStoreFullError);
    expect(await q.enqueue([job('4')], T0 + 61_001)).toEqual(['queued']);
  });
});
