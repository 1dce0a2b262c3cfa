import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type pg from 'pg';
import { TcpProxy } from '../../bench/lib/tcpProxy.ts';
import { loadConfig } from '../../src/config/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { QueryWatchdog } from '../../src/db/watchdog.ts';
import { appOn, get } from '../support/app.ts';
import { createScratchDatabase } from '../support/database.ts';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'needs TEST_DATABASE_URL';

test('the watchdog ends the clients checked out longer than its limit, and only those', () => {
  const pool = new EventEmitter();
  const ended: string[] = [];
  const client = (name: string) => ({ name, connection: { stream: { destroy: () => void ended.push(name) } } }) as unknown as pg.PoolClient;
  const [slow, quick, back] = [client('slow'), client('quick'), client('back')];
  const watchdog = new QueryWatchdog(1000).watch(pool as unknown as pg.Pool);
  try {
    const t0 = performance.now();
    for (const c of [slow, quick, back]) pool.emit('acquire', c);
    pool.emit('release', undefined, back);
    watchdog.check(t0 + 999);
    assert.deepEqual(ended, []);
    pool.emit('release', undefined, quick);
    watchdog.check(t0 + 1500);
    assert.deepEqual(ended, ['slow']);
    watchdog.check(t0 + 5000);
    assert.deepEqual(ended, ['slow'], 'ended once');
    assert.equal(watchdog.ended, 1);
  } finally {
    watchdog.stop();
  }
});

test('a cut network to PostgreSQL: requests answer 503 within the statement timeout + ~1 s, and the service recovers', { skip, timeout: 60_000 }, async (t) => {
  const scratch = await createScratchDatabase(url!, 'cqs_watchdog');
  const admin = createPostgresDb(loadConfig({ DATABASE_URL: scratch.url }, '/nonexistent'));
  const proxy = TcpProxy.to(scratch.url);
  const port = await proxy.listen();
  const statementTimeout = 1000;
  const config = loadConfig(
    {
      DATABASE_URL: proxy.urlThrough(scratch.url, port),
      HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: String(statementTimeout),
      HIERO_MIRROR_REST_DB_POOL_CONNECTIONTIMEOUT: '1000',
    },
    '/nonexistent',
  );
  const db = createPostgresDb(config);
  const app = appOn(db, { config });
  const lookup = '/api/v1/contracts/0.0.1001';
  try {
    await migrate(admin);
    // a warm pool: connections open through the proxy before it is cut
    const warm = await Promise.all(Array.from({ length: 3 }, () => get(app, lookup)));
    assert.deepEqual(warm.map((r) => r.statusCode), [404, 404, 404]);

    proxy.cut();
    const started = performance.now();
    const cut = await Promise.all(Array.from({ length: 5 }, () => get(app, lookup)));
    const ms = performance.now() - started;
    t.diagnostic(`5 requests with the network cut answered in ${Math.round(ms)} ms`);
    assert.deepEqual(cut.map((r) => r.statusCode), [503, 503, 503, 503, 503]);
    assert.equal(cut[0]!.body, '{"_status":{"messages":[{"message":"Service unavailable"}]}}');
    assert.ok(ms < statementTimeout + 1000, `answered within the statement timeout + 1 s (${Math.round(ms)} ms)`);
    assert.equal(db.poolStats().waiting, 0, 'nothing left waiting for a connection');

    proxy.heal();
    const healed = await get(app, lookup);
    assert.equal(healed.statusCode, 404, 'answers again once the network is back');
  } finally {
    await app.close();
    await db.close();
    await admin.close();
    await proxy.close();
    await scratch.drop();
  }
});
