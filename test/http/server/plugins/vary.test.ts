import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { demoExamples } from '../../../../src/demo/examples.ts';
import { readDemoInfo, seedDemo } from '../../../../src/demo/seed.ts';
import { withAcceptEncoding } from '../../../../src/http/server/plugins/vary.ts';
import { type TestApp, openTestApp, testConfig } from '../../../support/app.ts';

/**
 * Vary as the reference's compression middleware sends it: exactly one `Accept-Encoding`, on every
 * route's answers, compressed or not; none on 304, none without response.compression.
 */

let service: TestApp;
let paths: string[] = [];
before(async () => {
  service = await openTestApp('embedded', (db) => seedDemo(db, { scale: 0.1 }));
  const info = await readDemoInfo(service.db);
  paths = [
    ...demoExamples(info!.facts).map((example) => example.path),
    '/api/v1/contracts?limit=100',
    '/api/v1/contracts/results?limit=100',
    '/api/v1/contracts/results/logs?limit=100',
    '/api/v1/contracts/abc',
    '/api/v1/contracts/0.0.999999',
    '/api/v1/unknown',
    '/api/v1/contracts/%zz',
  ];
});
after(() => service?.close());

test('one Vary: Accept-Encoding on every route, with and without Accept-Encoding', async () => {
  const endpoints = new Set<string>();
  let compressed = 0;
  for (const path of paths) {
    for (const headers of [{}, { 'accept-encoding': 'gzip, deflate, br' }, { 'accept-encoding': 'gzip' }]) {
      const res = await service.get(path, headers);
      assert.equal(res.headers.vary, 'Accept-Encoding', `${path} ${JSON.stringify(headers)}: ${res.statusCode}`);
      if (res.headers['content-encoding']) compressed++;
      endpoints.add(path.split('?')[0]!);
    }
  }
  assert.ok(compressed >= 10, `compressed answers were among them (${compressed})`);
});

test('no Vary on 304, on the health probes, on the preflight beyond CORS\'s own; none without response.compression', async () => {
  const first = await service.get(paths[0]!);
  const notModified = await service.get(paths[0]!, { 'if-none-match': String(first.headers.etag) });
  assert.equal(notModified.statusCode, 304);
  assert.equal(notModified.headers.vary, undefined);
  assert.equal((await service.get('/health/liveness', { 'accept-encoding': 'gzip' })).headers.vary, undefined);
  const preflight = await service.app.inject({ method: 'OPTIONS', url: paths[0]!, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(preflight.headers.vary, 'Access-Control-Request-Headers');

  const { createApp } = await import('../../../../src/app.ts');
  const plain = createApp(testConfig({ HIERO_MIRROR_REST_RESPONSE_COMPRESSION: 'false' }), service.db);
  try {
    const res = await plain.inject({ url: '/api/v1/contracts/results?limit=100', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(res.headers.vary, undefined);
  } finally {
    await plain.close();
  }
});

test('withAcceptEncoding: appended once, any case, after what is there', () => {
  assert.equal(withAcceptEncoding(undefined), 'Accept-Encoding');
  assert.equal(withAcceptEncoding('Accept-Encoding, accept-encoding'), 'Accept-Encoding');
  assert.equal(withAcceptEncoding('Origin'), 'Origin, Accept-Encoding');
  assert.equal(withAcceptEncoding('Origin, accept-encoding, X'), 'Origin, Accept-Encoding, X');
  assert.equal(withAcceptEncoding(['Origin', 'Accept-Encoding']), 'Origin, Accept-Encoding');
  assert.equal(withAcceptEncoding('*'), '*');
});
