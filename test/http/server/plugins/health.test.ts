import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../../../src/db/db.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { loadConfig } from '../../../../src/config/config.ts';
import { fakeDb as fake, openTestDatabase, testBackends } from '../../../support/database.ts';

const config = loadConfig({}, '/nonexistent');

async function probe(db: Db, url: string) {
  const app = buildApp({ config, db, routes: [] });
  const res = await app.inject({ method: 'GET', url });
  await app.close();
  return { status: res.statusCode, body: res.body, type: res.headers['content-type'] };
}

test('liveness answers ok whatever the database does', async () => {
  const down = fake(async () => {
    throw new Error('connection refused');
  });
  assert.deepEqual(await probe(down, '/health/liveness'), { status: 200, body: '{"status":"ok"}', type: 'application/json' });
});

test('readiness: 503 while the database is down or misses a table, 200 once it has them all', async () => {
  const down = fake(async () => {
    throw new Error('connection refused');
  });
  assert.deepEqual(await probe(down, '/health/readiness'), { status: 503, body: '{"status":"error"}', type: 'application/json' });
  assert.equal((await probe(fake(async () => [{ name: 'contract_log' }] as never), '/health/readiness')).status, 503);
  assert.equal((await probe(fake(async () => []), '/health/readiness')).status, 200);
  for (const backend of testBackends()) {
    const database = await openTestDatabase(backend);
    try {
      assert.equal((await probe(database.db, '/health/readiness')).status, 200, backend);
      await database.db.exec('alter table contract_state rename to contract_state_gone');
      assert.equal((await probe(database.db, '/health/readiness')).status, 503, backend);
    } finally {
      await database.close();
    }
  }
});
