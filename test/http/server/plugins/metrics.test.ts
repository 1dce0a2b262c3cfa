import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/config.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { contractLookupRoute } from '../../../../src/contracts/contract/lookupRoute.ts';
import { openTestDatabase } from '../../../support/database.ts';

test('metrics: requests by route template and status, latency, pool, statements, process; at both paths', async () => {
  const database = await openTestDatabase('embedded');
  const app = buildApp({ config: loadConfig({}, '/nonexistent'), db: database.db, routes: [contractLookupRoute] });
  try {
    assert.equal((await app.inject('/api/v1/contracts/0.0.1001')).statusCode, 404);
    assert.equal((await app.inject('/api/v1/contracts/abc')).statusCode, 400);
    assert.equal((await app.inject('/no/such/path')).statusCode, 404);
    for (const url of ['/metrics', '/swagger/metrics/', '/swagger/metrics']) {
      const res = await app.inject(url);
      assert.equal(res.statusCode, 200, url);
      assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/);
      const text = res.body;
      assert.match(text, /^http_requests_total\{method="GET",route="\/api\/v1\/contracts\/:contractId",status="404"\} 1$/m);
      assert.match(text, /^http_requests_total\{method="GET",route="\/api\/v1\/contracts\/:contractId",status="400"\} 1$/m);
      assert.match(text, /^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
      assert.doesNotMatch(text, /route="\/no\/such\/path"/);
      assert.match(text, /^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v1\/contracts\/:contractId",status="404"\} \d+$/m);
      assert.match(text, /^db_pool_connections\{state="total"\} \d+$/m);
      assert.match(text, /^db_pool_connections\{state="waiting"\} 0$/m);
      assert.match(text, /^db_query_duration_seconds_count\{outcome="ok"\} [1-9]\d*$/m);
      assert.match(text, /^process_cpu_user_seconds_total \d/m);
      assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    }
  } finally {
    await app.close();
    await database.close();
  }
});
