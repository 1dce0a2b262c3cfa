import assert from 'node:assert/strict';
import { brotliDecompressSync } from 'node:zlib';
import { test } from 'node:test';
import { DatabaseUnavailableError } from '../../../src/db/db.ts';
import { badRequest } from '../../../src/http/request/errors.ts';
import type { Route } from '../../../src/http/route.ts';
import { appOn, get } from '../../support/app.ts';
import { fakeDb as fake } from '../../support/database.ts';

const fakeDb = fake();

const routes: Route[] = [
  {
    path: '/api/v1/contracts/:contractId',
    cacheControl: 'public, max-age=1',
    async handler({ params, query, path }) {
      if (params.contractId === 'big') return { body: { data: 'x'.repeat(5000) } };
      if (params.contractId === 'bad') throw badRequest(['Invalid parameter: a', 'Invalid parameter: b']);
      if (params.contractId === 'down') throw new DatabaseUnavailableError(new Error('connection refused'));
      if (params.contractId === 'bug') throw new TypeError('boom');
      return { body: { id: params.contractId, path, keys: [...query.keys()] }, next: '/next?x=1' };
    },
  },
];

const app = appOn(fakeDb, { routes });

test('success: reference headers, Link, CORS, case-insensitive route with trailing slash', async () => {
  const res = await get(app, '/API/V1/Contracts/0xAbC/?Limit=1');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(res.headers['cache-control'], 'public, max-age=1');
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.equal(res.headers.vary, 'Accept-Encoding');
  assert.equal(res.headers.link, '</next?x=1>; rel="next"');
  assert.equal(res.body, '{"id":"0xAbC","path":"/API/V1/Contracts/0xAbC/","keys":["limit"]}');
});

test('errors: body shape, no cache-control, 503 for the database, 500 only for bugs', async () => {
  const bad = await get(app, '/api/v1/contracts/bad');
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.body, '{"_status":{"messages":[{"message":"Invalid parameter: a"},{"message":"Invalid parameter: b"}]}}');
  assert.equal(bad.headers['cache-control'], undefined);
  assert.equal(bad.headers['access-control-allow-origin'], '*');
  assert.ok(bad.headers.etag);
  const down = await get(app, '/api/v1/contracts/down');
  assert.equal(down.statusCode, 503);
  assert.equal(down.headers['retry-after'], '1');
  assert.equal(down.body, '{"_status":{"messages":[{"message":"Service unavailable"}]}}');
  const bug = await get(app, '/api/v1/contracts/bug');
  assert.equal(bug.statusCode, 500);
  assert.equal(bug.body, '{"_status":{"messages":[{"message":"Internal error"}]}}');
});

test('unknown routes and undecodable paths', async () => {
  const missing = await get(app, '/api/v1/contracts/1001/foo');
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.body, '{"_status":{"messages":[{"message":"Not found"}]}}');
  const undecodable = await get(app, '/api/v1/contracts/%zz');
  assert.equal(undecodable.statusCode, 400);
  assert.equal(undecodable.headers['access-control-allow-origin'], '*');
});

test('bodies of 1 KiB or more are compressed for clients that accept it, preferring br', async () => {
  const res = await get(app, '/api/v1/contracts/big', { 'accept-encoding': 'gzip, br' });
  assert.equal(res.headers['content-encoding'], 'br');
  assert.match(brotliDecompressSync(res.rawPayload).toString(), /^\{"data":"x{5000}"\}$/);
  const small = await get(app, '/api/v1/contracts/1', { 'accept-encoding': 'gzip, br' });
  assert.equal(small.headers['content-encoding'], undefined);
  assert.ok(small.headers['content-length']);
});

test('CORS preflight is answered', async () => {
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/contracts/1',
    headers: { origin: 'https://example.com', 'access-control-request-method': 'GET' },
  });
  assert.equal(res.statusCode, 204);
  assert.equal(res.headers['access-control-allow-origin'], '*');
});

test('cache-control follows response.headers: the route pattern first, then the default', async () => {
  const { buildApp } = await import('../../../src/http/server/server.ts');
  const { cacheControlOf } = await import('../../../src/http/route.ts');
  const { loadConfig } = await import('../../../src/config/config.ts');
  const { routes: all } = await import('../../../src/app.ts');
  const defaults = loadConfig({}, '/nonexistent');
  for (const route of all) assert.equal(cacheControlOf(route, defaults), route.cacheControl, `${route.path}: declared value is the default`);
  const config = loadConfig({}, '/nonexistent', { response: { headers: { default: { 'cache-control': 'public, max-age=7' } } } });
  const custom = buildApp({ config, db: fakeDb, routes });
  const res = await custom.inject('/api/v1/contracts/x');
  assert.equal(res.headers['cache-control'], 'public, max-age=7');
  await custom.close();
});

test('CORS preflight: answered 204 with or without Origin, as the reference', async () => {
  for (const headers of [{}, { origin: 'http://a.example', 'access-control-request-headers': 'x-foo' }]) {
    const res = await app.inject({ method: 'OPTIONS', url: '/api/v1/contracts/1', headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-methods'], 'GET,HEAD,PUT,PATCH,POST,DELETE');
    assert.equal(res.headers.vary, 'Access-Control-Request-Headers');
    assert.equal(res.body, '');
  }
});

test('a route with its own cache-control keeps it only when /api/v1/contracts is typed in lower case', async () => {
  const { buildApp } = await import('../../../src/http/server/server.ts');
  const { loadConfig } = await import('../../../src/config/config.ts');
  const own = { path: '/api/v1/contracts/:id/own', pattern: '/api/v1/contracts/results', cacheControl: 'public, max-age=10', handler: async () => ({ body: {} }) };
  const custom = buildApp({ config: loadConfig({}, '/nonexistent'), db: fakeDb, routes: [own] });
  for (const [url, expected] of [
    ['/api/v1/contracts/1/own', 'public, max-age=10'],
    ['/api/v1/contracts/1/OWN/', 'public, max-age=10'],
    ['/api/v1/Contracts/1/own', 'public, max-age=1'],
    ['/API/v1/contracts/1/own', 'public, max-age=1'],
  ]) {
    assert.equal((await custom.inject(url!)).headers['cache-control'], expected, url);
  }
  await custom.close();
});

test('empty path segments: `/api/v1/contracts//` is the listing, as the reference routes it; any other empty parameter is 404', async () => {
  const withListing = appOn(fakeDb, {
    routes: [
      { path: '/api/v1/contracts', cacheControl: 'public, max-age=10', handler: async () => ({ body: { listing: true } }) },
      ...routes,
      { path: '/api/v1/contracts/results/:id', cacheControl: 'public, max-age=1', handler: async ({ params }) => ({ body: { id: params.id } }) },
    ],
  });
  // the listing's own cache-control needs the mount path in lower case, as on every route
  for (const [path, cacheControl] of [['/api/v1/contracts//', 'public, max-age=10'], ['/API/v1/Contracts//?limit=1', 'public, max-age=1']]) {
    const res = await get(withListing, path!);
    assert.equal(res.statusCode, 200, path);
    assert.equal(res.body, '{"listing":true}', path);
    assert.equal(res.headers['cache-control'], cacheControl, path);
  }
  const paged = appOn(fakeDb, {
    routes: [{ path: '/api/v1/contracts', cacheControl: 'public, max-age=10', handler: async ({ path }) => ({ body: { path } }) }, ...routes],
  });
  // links are built on the path without its empty segment, as the reference's are
  assert.equal((await get(paged, '/api/v1/contracts//?limit=1')).body, '{"path":"/api/v1/contracts"}');
  for (const path of ['/api/v1/contracts/results//?limit=1', '/api/v1/contracts/results//']) {
    const res = await get(withListing, path);
    assert.equal(res.statusCode, 404, path);
    assert.equal(res.body, '{"_status":{"messages":[{"message":"Not found"}]}}', path);
  }
});
