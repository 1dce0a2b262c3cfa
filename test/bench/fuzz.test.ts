/**
 * The fuzzer's requests (bench/lib/fuzzInput.ts) as a property test at a smaller count than
 * `npm run bench -- fuzz`: built on valid URLs of all ten routes sampled from a demo network, sent over raw
 * sockets to the app listening on a port; every request gets an answer and none is a 5xx, also while
 * slow readers (bench/lib/slowReader.ts) read big answers a few bytes at a time or not at all and
 * disconnect midway. The generators are seeded: the same seed gives the same requests.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { fuzzRequests, interleave, rpcAddresses, rpcRequests, serialize, slowReads } from '../../bench/lib/fuzzInput.ts';
import { runSlowReaders } from '../../bench/lib/slowReader.ts';
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
  const slow = (seed: number) => [...slowReads(urls, 'h:1', seed, 250)].map(({ request, plan }) => `${serialize(request).toString('latin1')} ${JSON.stringify(plan)}`);
  assert.deepEqual(slow(7), slow(7));
  assert.notDeepEqual(slow(7), slow(8));
});

test('fuzzed requests over all ten routes: every one answered, no 5xx', { timeout: 300_000 }, async () => {
  assert.deepEqual(new Set(urls.map(classify)), new Set(ENDPOINTS));
  const requests = [...fuzzRequests(urls, `127.0.0.1:${port}`, Number(process.env.FUZZ_SEED ?? 1), 1500)];
  const { failures, statuses } = await sendFuzzed(port, requests);
  assert.deepEqual(failures, []);
  // the mix reaches the handlers and the framework's own answers alike
  for (const status of [200, 400, 404]) assert.ok((statuses.get(status) ?? 0) > 20, `${status}: ${JSON.stringify([...statuses])}`);
});

test('slow readers beside the fuzzed requests: every other request still answered, no 5xx', { timeout: 300_000 }, async () => {
  const host = `127.0.0.1:${port}`;
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  const requests = [...fuzzRequests(urls, host, seed + 1, 600)];
  const sending = sendFuzzed(port, requests);
  // a fixed number of slow reads (not as many as fit in the time the others take): 4 at a time
  const reading = runSlowReaders(port, '127.0.0.1', slowReads(urls, host, seed, 12), 4, new Promise(() => {}));
  const [{ failures, statuses }, slow] = await Promise.all([sending, reading]);
  assert.deepEqual(failures, []);
  assert.ok((statuses.get(200) ?? 0) > 20, JSON.stringify([...statuses]));
  // the slow readers were there the whole time: answered (a status line came), and disconnected midway
  const summary = JSON.stringify({ ended: [...slow.ended], statuses: [...slow.statuses] });
  assert.equal(slow.reads, 12, summary);
  assert.ok((slow.statuses.get('200') ?? 0) > 0, summary);
  assert.ok((slow.ended.get('disconnected') ?? 0) > 0, summary);
});

test('JSON-RPC attacks (issue 58): 21,500 addresses, batches, eth_newFilter after eth_newFilter, broken envelopes: every one answered, no 5xx', { timeout: 300_000 }, async () => {
  const host = `127.0.0.1:${port}`;
  const requests = [...rpcRequests(host, 150)];
  const bodies = requests.map((r) => r.body!);
  for (const body of ['[]', '42', '{"jsonrpc":"2.0","id":1,"method":123}']) assert.ok(bodies.includes(body), body);
  const big = bodies.find((b) => b.includes('"eth_getLogs"') && b.length > 900_000 && b.length < 1_048_576);
  assert.ok(big && (JSON.parse(big) as { params: [{ address: string[] }] }).params[0].address.length === 21_500);
  assert.ok(bodies.some((b) => b.length > 1_048_576), 'one over rpc.maxBodyBytes');
  assert.equal(bodies.filter((b) => b.includes('"eth_newFilter"') && !b.startsWith('[')).length, 150 + 2);
  assert.deepEqual(rpcAddresses(2), [`0x${'0'.repeat(40)}`, `0x${'0'.repeat(39)}1`]);
  assert.deepEqual([...interleave<number | string>([1, 2, 3, 4, 5][Symbol.iterator](), ['a', 'b', 'c'][Symbol.iterator](), 2)], [1, 2, 'a', 3, 4, 'b', 5, 'c']);
  const { failures, statuses } = await sendFuzzed(port, requests);
  // no 5xx at all here (the documented 503 comes with load, a database down or a shutdown: none here)
  assert.deepEqual(failures, []);
  // answered by the JSON-RPC layer: 200, or 400/413/415 for envelopes refused before any method ran
  assert.ok([...statuses.keys()].every((status) => [200, 400, 413, 415].includes(status)), JSON.stringify([...statuses]));
  assert.ok((statuses.get(200) ?? 0) >= 10, JSON.stringify([...statuses]));
  // the batch of 100 eth_newFilter is answered (filter methods are, in a batch) and takes the client's
  // rpc.maxFiltersPerClient: each of the 150 eth_newFilter after it is refused -32005 (400), none dropped
  assert.ok((statuses.get(400) ?? 0) >= 150, JSON.stringify([...statuses]));
});
