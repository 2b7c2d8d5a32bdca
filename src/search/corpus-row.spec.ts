import { describe, expect, it } from 'vitest';
import { MAX_ALT_NAMES, rowToSearchItem } from './corpus-row.js';

describe(rowToSearchItem.name, () => {
  it('should read a full JSON row, keeping unknown keys as fields', () => {
    expect(
      rowToSearchItem({
        id: 7,
        name: ' Paris ',
        country: 'FR',
        population: 2138551,
        lat: 48.85,
        lon: 2.35,
        altNames: ['Lutèce'],
        fields: { a: 1 },
        tags: ['x'],
      }),
    ).toEqual({
      item: {
        id: '7',
        name: 'Paris',
        country: 'FR',
        population: 2138551,
        lat: 48.85,
        lon: 2.35,
        altNames: ['Lutèce'],
        fields: { a: 1, tags: ['x'] },
      },
    });
  });

  it('should read CSV strings: numbers parsed, empty cells left out, alt names split on |', () => {
    expect(
      rowToSearchItem({
        id: 'a1',
        name: 'Zürich',
        country: '',
        population: '341730',
        lat: '',
        lon: ' 8.55 ',
        alt_names: 'Zurich| Zuerich |',
        kind: 'city',
        note: '',
      }),
    ).toEqual({
      item: {
        id: 'a1',
        name: 'Zürich',
        population: 341730,
        lon: 8.55,
        altNames: ['Zurich', 'Zuerich'],
        fields: { kind: 'city' },
      },
    });
  });

  it('should need an id and a name', () => {
    expect(rowToSearchItem({ name: 'x' })).toEqual({ error: 'id is missing' });
    expect(rowToSearchItem({ id: '1', name: '   ' })).toEqual({ error: 'name is missing' });
    expect(rowToSearchItem({ id: 'x'.repeat(300), name: 'n' })).toEqual({
      error: 'id is longer than 256 characters',
    });
  });

  it('should list every problem of a row at once', () => {
    const r = rowToSearchItem({
      id: '1',
      name: 'n',
      population: '-3',
      lat: '91',
      lon: 'east',
      altNames: [1, 2],
    });
    expect(r).toEqual({
      error:
        'population must be a whole number ≥ 0 (got "-3"); lat must be a number in -90..90 (got "91"); lon must be a number in -180..180 (got "east"); altNames must be a list of strings or a string of names separated by |',
    });
  });

  it('should refuse fractional populations, too many alt names and non-object fields', () => {
    expect(rowToSearchItem({ id: '1', name: 'n', population: 1.5 })).toEqual({
      error: 'population must be a whole number ≥ 0 (got 1.5)',
    });
    expect(
      rowToSearchItem({
        id: '1',
        name: 'n',
        altNames: Array.from({ length: MAX_ALT_NAMES + 1 }, (_, i) => `n${i}`),
      }),
    ).toEqual({
      error: `altNames may hold at most ${MAX_ALT_NAMES} names`,
    });
    expect(rowToSearchItem({ id: '1', name: 'n', fields: 'x' })).toEqual({
      error: 'fields must be an object',
    });
  });
});
