/**
 * The fuzzer's requests (bench/lib/fuzzInput.ts) as a property test at a smaller count than
 * `npm run fuzz`: built on valid URLs of all ten routes sampled from a demo network, sent over raw
 * sockets to the app listening on a port; every request gets an answer and none is a 5xx. The
 * generator is seeded: the same seed gives the same requests.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { fuzzRequests, serialize } from '../../bench/lib/fuzzInput.ts';
import { ENDPOINTS, classify } from '../../bench/lib/urls.ts';
import { buildWorkload, sampleDatabase, seededRandom } from '../../bench/lib/workload.ts';
import type { Db } from '../../src/db/db.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { appOn } from '../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { sendFuzzed } from '../support/fuzzSend.ts';

let database: TestDatabase;
let app: FastifyInstance;
let port: number;
let urls: string[];
const queryable = (db: Db) => ({ query: async <R>(text: string, values?: unknown[]) => ({ rows: await db.query<R>(text, values ?? []) }) });

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.3 });
  urls = buildWorkload(await sampleDatabase(queryable(database.db), 60, 0.5), 300, seededRandom(1)).urls;
  app = appOn(database.db);
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
after(async () => {
  await app?.close();
  await database?.close();
});

test('the fuzzer is seeded: the same seed, the same requests; another seed, others', () => {
  const take = (seed: number) => [...fuzzRequests(urls, 'h:1', seed, 1200)].map((r) => serialize(r).toString('latin1'));
  assert.deepEqual(take(7), take(7));
  assert.notDeepEqual(take(7), take(8));
});

test('fuzzed requests over all ten routes: every one answered, no 5xx', { timeout: 300_000 }, async () => {
  assert.deepEqual(new Set(urls.map(classify)), new Set(ENDPOINTS));
  const requests = [...fuzzRequests(urls, `127.0.0.1:${port}`, Number(process.env.FUZZ_SEED ?? 1), 1500)];
  const { failures, statuses } = await sendFuzzed(port, requests);
  assert.deepEqual(failures, []);
  // the mix reaches the handlers and the framework's own answers alike
  for (const status of [200, 400, 404]) assert.ok((statuses.get(status) ?? 0) > 20, `${status}: ${JSON.stringify([...statuses])}`);
});
