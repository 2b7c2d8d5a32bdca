import { describe, expect, it } from 'vitest';
import { StaticRoutes } from './static-routes.js';

describe(StaticRoutes.name, () => {
  const routes = new StaticRoutes([
    { method: 'GET', template: '/v1/search', policy: 'search' },
    { method: 'GET', template: '/v1/search/items/:id', policy: 'search-item' },
    { method: 'POST', template: '/v1/chat/completions', policy: 'inference' },
    { method: 'GET', template: '/health/live' },
  ]);

  it('should know protected routes without parameters by method and exact path, without the query', () => {
    expect(routes.find('GET', '/v1/search?q=paris')).toEqual({
      template: '/v1/search',
      policy: 'search',
    });
    expect(routes.find('HEAD', '/v1/search')?.policy).toBe('search');
    expect(routes.find('POST', '/v1/chat/completions')?.policy).toBe('inference');
  });

  it('should not know a parameterised, unprotected or inexact route, nor another method', () => {
    expect(routes.size).toBe(3);
    expect(routes.find('GET', '/v1/search/items/42')).toBeUndefined();
    expect(routes.find('GET', '/health/live')).toBeUndefined();
    expect(routes.find('GET', '/v1/search/')).toBeUndefined();
    expect(routes.find('GET', '/V1/SEARCH')).toBeUndefined();
    expect(routes.find('POST', '/v1/search')).toBeUndefined();
    expect(routes.find(undefined, '/v1/search')).toBeUndefined();
  });
});
