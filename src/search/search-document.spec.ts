import { describe, expect, it } from 'vitest';
import { SearchItemError, indexItem, prepareBatch, queryOf, rowToItem } from './search-document.js';

describe(indexItem.name, () => {
  it('should index name, alternative names and country, each term once', () => {
    expect(
      indexItem({ id: '1', name: 'São Paulo', altNames: ['Sao Paulo', 'Sampa'], country: 'BR' }),
    ).toMatchObject({
      terms: ['sao', 'paulo', 'sampa', 'br'],
      nameNorm: 'sao paulo',
    });
  });

  it('should refuse items no backend may store', () => {
    for (const bad of [
      { id: '', name: 'x' },
      { id: 'x'.repeat(257), name: 'x' },
      { id: '1', name: '  ' },
      { id: '1', name: 'x', population: 1.5 },
      { id: '1', name: 'x', lat: 91 },
      { id: '1', name: 'x', lon: Number.NaN },
    ]) {
      expect(() => indexItem(bad)).toThrow(SearchItemError);
    }
  });
});

describe(prepareBatch.name, () => {
  it('should keep the last version of a repeated id and collect the distinct terms and ids', () => {
    const { docs, batch } = prepareBatch([
      { id: 'a', name: 'Old Name' },
      { id: 'b', name: 'Bee' },
      { id: 'a', name: 'New Name' },
    ]);
    expect(docs.map((d) => d.item.name)).toEqual(['Bee', 'New Name']);
    expect(batch).toEqual({ ids: ['b', 'a'], terms: ['bee', 'new', 'name'] });
  });
});

describe(queryOf.name, () => {
  it('should give the distinct terms and the normalised query', () => {
    expect(queryOf(' New  new-York ')).toEqual({ terms: ['new', 'york'], norm: 'new new york' });
  });
});

describe(rowToItem.name, () => {
  it('should leave absent values out and parse JSON columns', () => {
    expect(
      rowToItem({
        id: '1',
        name: 'n',
        country: null,
        population: 0,
        lat: null,
        lon: null,
        alt_names: '["a"]',
        fields: '{"k":[1]}',
      }),
    ).toEqual({ id: '1', name: 'n', population: 0, altNames: ['a'], fields: { k: [1] } });
  });
});
