import { describe } from 'vitest';
import { systemClock } from '../../../common/clock.js';
import { runBloomStoreTable } from '../../../../test/support/shield-bloom-store.table.js';
import { MemoryBloomStore } from './memory-bloom.store.js';

describe(MemoryBloomStore.name, () => {
  let n = 0;
  runBloomStoreTable(async () => ({ store: new MemoryBloomStore(systemClock), filter: `f${++n}` }));
});
