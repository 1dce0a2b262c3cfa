import assert from 'node:assert/strict';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { DatabaseUnavailableError } from '../../src/db/db.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { appOn, get } from '../support/app.ts';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? false : 'needs TEST_DATABASE_URL';

/** A TCP proxy in front of PostgreSQL that can be cut and restored, to play a database outage. */
function proxyTo(target: URL) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  return {
    async start(port = 0): Promise<number> {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      return (server!.address() as AddressInfo).port;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}

test('a database outage answers 503 and the service recovers when it is back', { skip }, async () => {
  const target = new URL(url!);
  const proxy = proxyTo(target);
  const port = await proxy.start();
  await proxy.stop(); // the database is "down" when the service starts
  const via = new URL(url!);
  via.hostname = '127.0.0.1';
  via.port = String(port);
  const config = loadConfig({ DATABASE_URL: via.toString(), HIERO_MIRROR_REST_DB_POOL_CONNECTIONTIMEOUT: '2000' }, '/nonexistent');
  const db = createPostgresDb(config);
  const app = appOn(db, { config });
  try {
    const down = await get(app, '/api/v1/contracts/0.0.1001');
    assert.equal(down.statusCode, 503);
    assert.equal(down.body, '{"_status":{"messages":[{"message":"Service unavailable"}]}}');

    await proxy.start(port); // back up (the test database has no schema: a SQL error is also a 503)
    await db.query('select 1');
    const up = await get(app, '/api/v1/contracts/abc');
    assert.equal(up.statusCode, 400);

    await proxy.stop(); // connections cut while the pool holds them
    assert.equal((await get(app, '/api/v1/contracts/0.0.1001')).statusCode, 503);
    await proxy.start(port);
    await db.query('select 1');
  } finally {
    await app.close();
    await db.close();
    await proxy.stop();
  }
});

test('a statement that outlives db.pool.statementTimeout fails as a database error (503)', { skip }, async () => {
  const config = loadConfig({ DATABASE_URL: url!, HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: '100' }, '/nonexistent');
  const db = createPostgresDb(config);
  try {
    await assert.rejects(db.query('select pg_sleep(2)'), (err: unknown) => err instanceof DatabaseUnavailableError && /statement timeout/.test(String((err as Error).message)));
    const [row] = await db.query<{ jit: string }>('show jit');
    assert.equal(row!.jit, 'off');
  } finally {
    await db.close();
  }
});
