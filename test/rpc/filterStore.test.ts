/**
 * The filter table (src/rpc/filterStore.ts): bounded per client and in all by refusal, never by
 * eviction (a filter still used survives any number of new ones), expired filters removed so that
 * the table shrinks (a fake clock, no waiting); over real sockets, the limit of a client address
 * (X-Forwarded-For with server.trustProxy) and the filters of others still answering; in Redis, the
 * limit across two processes sharing it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RpcError } from '../../src/rpc/errors.ts';
import { LocalFilters, type StoredFilter, filterStore, newFilterId } from '../../src/rpc/filterStore.ts';
import { testConfig } from '../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { startTestRedis } from '../support/redis.ts';
import { type Served, insertOneBlock, post, serveRpc, unprefixed } from './support.ts';

const filter = (n: number): StoredFilter => ({ type: 'newBlock', params: { blockAtCreation: `0x${n.toString(16)}` }, lastQueried: null });

async function refused(promise: Promise<unknown>, message: string) {
  await assert.rejects(promise, (err: unknown) => err instanceof RpcError && err.code === -32005 && err.message === message);
}

test('in process: a full client or table refuses a new filter and drops none; expired filters leave, the table shrinks', async () => {
  let now = 0;
  const store = new LocalFilters({ maxFilters: 5, maxFiltersPerClient: 3, filterTtlMs: 1000 }, () => now);
  try {
    const ids = Array.from({ length: 5 }, () => newFilterId());
    for (let i = 0; i < 3; i++) await store.add(ids[i]!, filter(i), 'a');
    await refused(store.add(newFilterId(), filter(9), 'a'), 'Filter limit exceeded: this client has 3 filters installed; uninstall one (eth_uninstallFilter) or let one expire');
    await store.add(ids[3]!, filter(3), 'b');
    await store.add(ids[4]!, filter(4), 'b');
    await refused(store.add(newFilterId(), filter(9), 'c'), 'Filter limit exceeded: the server holds its maximum of 5 filters; try again later');
    // every filter is still there: none was evicted for the refused ones
    for (const [i, id] of ids.entries()) assert.deepEqual(await store.get(id), filter(i));
    assert.equal(store.size, 5);
    // one of a's filters is used (refreshed) at 600 ms; at 1100 ms the others have expired
    now = 600;
    await store.set(ids[0]!, { ...filter(0), lastQueried: 7 });
    now = 1100;
    assert.equal(store.sweep(), 4);
    assert.equal(store.size, 1, 'the table shrank');
    assert.deepEqual([store.countOf('a'), store.countOf('b')], [1, 0]);
    assert.equal((await store.get(ids[0]!))?.lastQueried, 7);
    assert.equal(await store.get(ids[1]!), undefined);
    // an update of a filter gone meanwhile does not bring it back
    await store.set(ids[1]!, filter(1));
    assert.equal(await store.get(ids[1]!), undefined);
    // room again, for c too
    await store.add(newFilterId(), filter(5), 'c');
    assert.equal(await store.delete(ids[0]!), true);
    assert.equal(store.countOf('a'), 0);
  } finally {
    await store.close();
  }
});

test('in process: many expired filters, swept before a refusal, make room without a sweep of their own', async () => {
  let now = 0;
  const store = new LocalFilters({ maxFilters: 2000, maxFiltersPerClient: 2000, filterTtlMs: 1000 }, () => now);
  try {
    for (let i = 0; i < 2000; i++) await store.add(newFilterId(), filter(i), `client-${i % 7}`);
    assert.equal(store.size, 2000);
    now = 5000;
    // the table is full of expired filters: the new one is taken, the expired are gone
    await store.add(newFilterId(), filter(1), 'late');
    assert.equal(store.size, 1);
  } finally {
    await store.close();
  }
});

let database: TestDatabase;
let served: Served;

before(async () => {
  database = await openTestDatabase('embedded');
  await insertOneBlock(database.db);
  served = await serveRpc(database.db, {
    HIERO_MIRROR_REST_SERVER_TRUSTPROXY: 'true',
    HIERO_MIRROR_REST_RPC_MAXFILTERSPERCLIENT: '3',
    HIERO_MIRROR_REST_RPC_MAXFILTERS: '5',
  });
});
after(async () => {
  await served?.close();
  await database?.close();
});

const as = (client: string, method: string, params: unknown[] = []) =>
  post(served.base, { jsonrpc: '2.0', id: 1, method, params }, { 'content-type': 'application/json', 'x-forwarded-for': client });

test('over HTTP: a client address over rpc.maxFiltersPerClient, a full table: -32005; the filters of others still answer', async () => {
  const mine: string[] = [];
  for (let i = 0; i < 3; i++) mine.push((await as('10.0.0.1', i % 2 ? 'eth_newFilter' : 'eth_newBlockFilter', i % 2 ? [{}] : [])).json.result);
  const fourth = await as('10.0.0.1', 'eth_newBlockFilter');
  assert.equal(fourth.status, 400);
  assert.equal(fourth.json.error.code, -32005);
  assert.match(unprefixed(fourth.json.error.message), /this client has 3 filters installed/);
  const theirs = [(await as('10.0.0.2', 'eth_newBlockFilter')).json.result, (await as('10.0.0.2', 'eth_newBlockFilter')).json.result];
  assert.ok(theirs.every((id) => /^0x[0-9a-f]{32}$/.test(id)));
  // many tries of a third client on a full table: each refused, and nobody's filter goes
  for (let i = 0; i < 20; i++) assert.match(unprefixed((await as(`10.0.1.${i}`, 'eth_newBlockFilter')).json.error.message), /maximum of 5 filters/);
  for (const id of [...mine, ...theirs]) assert.ok(Array.isArray((await as('10.0.0.9', 'eth_getFilterChanges', [id])).json.result), id);
  // one uninstalled: its client has room again
  assert.equal((await as('10.0.0.1', 'eth_uninstallFilter', [mine[0]])).json.result, true);
  assert.match((await as('10.0.0.1', 'eth_newBlockFilter')).json.result, /^0x[0-9a-f]{32}$/);
});

test('in Redis: the limit of a client holds across two processes that share it', async (t) => {
  const redis = await startTestRedis();
  if (redis === undefined) return t.skip('no redis-server');
  const config = testConfig({
    HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true',
    HIERO_MIRROR_REST_REDIS_URI: redis.url,
    HIERO_MIRROR_REST_CACHE_RESPONSE_KEYPREFIX: 'filters-test:',
    HIERO_MIRROR_REST_RPC_MAXFILTERSPERCLIENT: '2',
  });
  const [one, two] = [filterStore(config), filterStore(config)];
  try {
    assert.equal(one.size, undefined);
    const first = newFilterId();
    await one.add(first, filter(1), 'a');
    await two.add(newFilterId(), filter(2), 'a');
    await refused(one.add(newFilterId(), filter(3), 'a'), 'Filter limit exceeded: this client has 2 filters installed; uninstall one (eth_uninstallFilter) or let one expire');
    await two.add(newFilterId(), filter(4), 'b');
    // used through the other process, uninstalled there: room again
    await two.set(first, { ...(await two.get(first))!, lastQueried: 3 });
    assert.equal((await one.get(first))?.lastQueried, 3);
    assert.equal(await two.delete(first), true);
    await one.add(newFilterId(), filter(5), 'a');
  } finally {
    await Promise.all([one.close(), two.close()]);
    await redis.close();
  }
});
