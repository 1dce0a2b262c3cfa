/**
 * POST /rpc on the demo network: the methods' answers as the relay gives them (chain id, block
 * number, logs in its order against the logs listing's rows, filters), its errors and HTTP statuses,
 * and hostile requests: bodies over the limit, batches over the limit, deep JSON, bad JSON, wrong
 * content types, other HTTP methods; each a clear JSON-RPC error, the server answering after them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, call, delayingDb, post, serveRpc, unprefixed } from './support.ts';

let database: TestDatabase;
let served: Served;
/** Blocks that exist: the newest log's and the first within 1,000 blocks before it. */
let logBlock: bigint;
let earlierBlock: bigint;

const hex = (n: bigint) => `0x${n.toString(16)}`;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  const [row] = await database.db.query<{ i: string }>(
    sql`select index::text as i from record_file where consensus_end >= (select max(consensus_timestamp) from contract_log) order by consensus_end limit 1`,
  );
  logBlock = BigInt(row!.i);
  const [low] = await database.db.query<{ i: string }>(sql`select index::text as i from record_file where index >= ${(logBlock - 1000n).toString()} order by index limit 1`);
  earlierBlock = BigInt(low!.i);
  served = await serveRpc(database.db, { HIERO_MIRROR_REST_RPC_MAXBODYBYTES: '65536', HIERO_MIRROR_REST_RPC_MAXBATCHSIZE: '5', HIERO_MIRROR_REST_RPC_PAGESIZE: '1' });
});
after(async () => {
  await served?.close();
  await database?.close();
});

test('eth_chainId, net_version, eth_blockNumber: the relay forms', async () => {
  assert.equal((await call(served.base, 'eth_chainId')).text, '{"result":"0x12a","jsonrpc":"2.0","id":1}');
  assert.equal((await call(served.base, 'net_version', [], 'a')).text, '{"result":"298","jsonrpc":"2.0","id":"a"}');
  const [latest] = await database.db.query<{ i: string }>(sql`select index::text as i from record_file order by consensus_end desc limit 1`);
  assert.equal((await call(served.base, 'eth_blockNumber')).json.result, hex(BigInt(latest!.i)));
});

/** Where a log stands in the relay's order: block, transaction, log index. */
const place = (log: Record<string, any>): bigint[] => [BigInt(log.blockNumber), BigInt(log.transactionIndex), BigInt(log.logIndex)];
const precedes = (a: bigint[], b: bigint[]): boolean => a[0]! < b[0]! || (a[0] === b[0] && (a[1]! < b[1]! || (a[1] === b[1] && a[2]! < b[2]!)));

test('eth_getLogs: the listing rows of the block range, oldest first as the relay asks for them, in pages', async () => {
  const res = await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock) }]);
  assert.equal(res.status, 200);
  const logs = res.json.result as Array<Record<string, any>>;
  const [range] = await database.db.query<{ start: string; end: string }>(
    sql`select (select consensus_start::text from record_file where index = ${earlierBlock.toString()}) as start, (select consensus_end::text from record_file where index = ${logBlock.toString()}) as end`,
  );
  const [count] = await database.db.query<{ n: string }>(sql`select count(*)::text as n from contract_log where consensus_timestamp between ${range!.start} and ${range!.end}`);
  assert.equal(logs.length, Number(count!.n));
  assert.ok(logs.length > 1, `more than one page: ${logs.length} logs from block ${earlierBlock} to ${logBlock}`);
  for (let i = 1; i < logs.length; i++) assert.ok(precedes(place(logs[i - 1]!), place(logs[i]!)), `oldest first: ${place(logs[i - 1]!)} then ${place(logs[i]!)}`);
  // one address: the same logs as that contract's, in the same order
  const address = logs[0]!.address;
  const one = (await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), address }])).json.result as any[];
  assert.deepEqual(one, logs.filter((l) => l.address === address));
  // several addresses: by timestamp (block, transaction), then the addresses' order, then log index,
  // in a block with a transaction whose logs come from several contracts
  const [shared] = await database.db.query<{ i: string }>(sql`select r.index::text as i from record_file r where exists (select 1 from contract_log l
      where l.consensus_timestamp between r.consensus_start and r.consensus_end group by l.consensus_timestamp having count(distinct l.contract_id) > 1)
    order by r.index desc limit 1`);
  const sharedBlock = { fromBlock: hex(BigInt(shared!.i)), toBlock: hex(BigInt(shared!.i)) };
  const blockLogs = (await call(served.base, 'eth_getLogs', [sharedBlock])).json.result as any[];
  for (let i = 1; i < blockLogs.length; i++) assert.ok(precedes(place(blockLogs[i - 1]!), place(blockLogs[i]!)), 'oldest first');
  const addresses = [...new Set(blockLogs.map((l) => l.address as string))].reverse();
  assert.ok(addresses.length > 1);
  const several = (await call(served.base, 'eth_getLogs', [{ ...sharedBlock, address: addresses }])).json.result as any[];
  const expected = [...blockLogs].sort(
    (a, b) => Number(place(a)[1]! - place(b)[1]!) || addresses.indexOf(a.address) - addresses.indexOf(b.address) || Number(place(a)[2]! - place(b)[2]!),
  );
  assert.notDeepEqual(expected, blockLogs, 'the addresses\' order changes the order within a transaction');
  assert.deepEqual(several, expected);
  // topics: the first topic of the first log, OR-ed with an absent one
  const topic = logs[0]!.topics[0];
  const byTopic = (await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), topics: [[topic, `0x${'ee'.repeat(32)}`]] }])).json.result as any[];
  assert.deepEqual(byTopic, logs.filter((l) => l.topics[0] === topic));
  // a block hash: that block's logs
  const block = (await call(served.base, 'eth_getLogs', [{ blockHash: logs[0]!.blockHash }])).json.result as any[];
  assert.deepEqual(block, logs.filter((l) => l.blockHash === logs[0]!.blockHash));
  // an address without a contract, an empty address list, a block that does not exist: none
  for (const filter of [{ address: `0x${'ab'.repeat(20)}` }, { address: [] }, { fromBlock: hex(logBlock + 1000n), toBlock: hex(logBlock + 1001n) }]) {
    assert.equal((await call(served.base, 'eth_getLogs', [filter])).text, '{"result":[],"jsonrpc":"2.0","id":1}');
  }
});

/** The text of the one message answering `body` over a WebSocket to `base`, and whether it came as text. */
function overWebSocket(base: string, body: unknown): Promise<{ text: string; isBinary: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/rpc`);
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify(body)));
    socket.once('message', (data: Buffer, isBinary: boolean) => {
      resolve({ text: data.toString('utf8'), isBinary });
      socket.close();
    });
  });
}

test('eth_getLogs: an answer of one page goes out whole with its length, one of several pages chunked, the same text, over HTTP and WebSockets', async () => {
  const whole = await serveRpc(database.db);
  try {
    // an id of characters beyond ASCII, of two, three and four bytes: the logs are bytes, the envelope text
    const body = { jsonrpc: '2.0', id: 'é✓𝄞', method: 'eth_getLogs', params: [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock) }] };
    const ask = (base: string) =>
      fetch(`${base}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' }, body: JSON.stringify(body) });
    const [one, paged] = await Promise.all([ask(whole.base), ask(served.base)]);
    const [oneText, pagedText] = await Promise.all([one.text(), paged.text()]);
    assert.equal(one.headers.get('content-length'), String(Buffer.byteLength(oneText)));
    assert.equal(one.headers.get('transfer-encoding'), null);
    assert.equal(paged.headers.get('transfer-encoding'), 'chunked');
    const parsed = JSON.parse(pagedText) as { result: unknown[]; id: string };
    assert.ok(parsed.result.length > 1);
    assert.equal(parsed.id, 'é✓𝄞');
    assert.equal(oneText, pagedText);
    for (const base of [whole.base, served.base]) {
      const message = await overWebSocket(base, body);
      assert.equal(message.isBinary, false, 'a text message');
      assert.equal(message.text, oneText);
    }
  } finally {
    await whole.close();
  }
});

test('eth_getLogs: the relay errors for block ranges, with HTTP 400', async () => {
  const cases: Array<[unknown, number, string]> = [
    [{ toBlock: hex(earlierBlock) }, -32011, 'Provided toBlock parameter without specifying fromBlock'],
    [{ fromBlock: hex(logBlock), toBlock: hex(earlierBlock) }, -39013, 'Invalid block range'],
    [{ fromBlock: hex(logBlock - 2000n), toBlock: hex(logBlock) }, -32000, 'Exceeded maximum block range: 1000'],
  ];
  const [first] = await database.db.query<{ i: string }>(sql`select index::text as i from record_file where index <= ${(logBlock - 2000n).toString()} order by index desc limit 1`);
  cases[2]![0] = { fromBlock: hex(BigInt(first!.i)), toBlock: hex(logBlock) };
  for (const [filter, code, message] of cases) {
    const res = await call(served.base, 'eth_getLogs', [filter]);
    assert.equal(res.status, 400, JSON.stringify(filter));
    assert.equal(res.json.error.code, code);
    assert.equal(unprefixed(res.json.error.message), message);
    assert.match(res.json.error.message, /^\[Request ID: [^\]]+\] /);
  }
});

test('filters: ids, changes from the block after the last answered (never a log twice), block hashes, uninstall, unknown ids', async () => {
  const id = (await call(served.base, 'eth_newFilter', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock) }])).json.result;
  assert.match(id, /^0x[0-9a-f]{32}$/);
  const all = (await call(served.base, 'eth_getFilterLogs', [id])).json.result;
  assert.ok(all.length > 0);
  assert.deepEqual((await call(served.base, 'eth_getFilterChanges', [id])).json.result, all);
  // the relay's next fromBlock is the block after the last log's: past toBlock (the newest log's block), -39013
  const [newest] = await database.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
  await database.db.query(
    sql`insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count, digest_algorithm, version, file_hash, index, node_id)
      values ('next.rcd', 0, 0, ${'cd'.repeat(48)}, '', ${(BigInt(newest!.end) + 1n).toString()}, ${(BigInt(newest!.end) + 2n).toString()}, 1, 0, 6, '', ${(logBlock + 1n).toString()}, 3)`,
  );
  const again = await call(served.base, 'eth_getFilterChanges', [id]);
  assert.equal(again.status, 400);
  assert.deepEqual([again.json.error.code, unprefixed(again.json.error.message)], [-39013, 'Invalid block range']);
  // to the newest block: nothing new on a database that does not change, no log twice
  const open = (await call(served.base, 'eth_newFilter', [{ fromBlock: hex(earlierBlock) }])).json.result;
  assert.ok((await call(served.base, 'eth_getFilterChanges', [open])).json.result.length > 0);
  assert.deepEqual((await call(served.base, 'eth_getFilterChanges', [open])).json.result, []);
  const blocks = (await call(served.base, 'eth_newBlockFilter')).json.result;
  assert.deepEqual((await call(served.base, 'eth_getFilterChanges', [blocks])).json.result, []);
  assert.equal((await call(served.base, 'eth_uninstallFilter', [blocks])).json.result, true);
  assert.equal((await call(served.base, 'eth_uninstallFilter', [blocks])).json.result, false);
  const missing = await call(served.base, 'eth_getFilterChanges', [blocks]);
  assert.equal(missing.status, 400);
  assert.deepEqual([missing.json.error.code, unprefixed(missing.json.error.message)], [-32001, 'Filter not found']);
});

test('unknown and relay-only methods, requests that are not JSON-RPC 2.0, batches', async () => {
  const relayOnly = await call(served.base, 'eth_sendRawTransaction', ['0x00']);
  assert.equal(relayOnly.json.error.code, -32601);
  assert.match(relayOnly.json.error.message, /eth_sendRawTransaction is not served here.*JSON-RPC relay/);
  assert.equal(unprefixed((await call(served.base, 'eth_nothing')).json.error.message), 'Method eth_nothing not found');
  assert.equal(unprefixed((await call(served.base, 'engine_x')).json.error.message), 'Unsupported JSON-RPC method');
  assert.equal((await post(served.base, { jsonrpc: '1.0', id: 3, method: 'eth_chainId' })).text, '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":3}');
  assert.equal((await post(served.base, { jsonrpc: '2.0', method: 'eth_chainId' })).text, '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null}');
  const batch = await post(served.base, [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { jsonrpc: '2.0', id: 2, method: 'eth_newBlockFilter' }, 7]);
  assert.equal(batch.status, 200);
  // a filter method in a batch is answered as alone (the relay: -32007; docs/compatibility.md)
  assert.match(
    batch.text,
    /^\[\{"result":"0x12a","jsonrpc":"2\.0","id":1\},\{"result":"0x[0-9a-f]{32}","jsonrpc":"2\.0","id":2\},\{"error":\{"message":"Invalid Request","code":-32600\},"jsonrpc":"2\.0","id":null\}\]$/,
  );
  // an empty batch: one Invalid Request, not `[]` (JSON-RPC 2.0; the relay answers `[]`: docs/compatibility.md)
  assert.equal((await post(served.base, [])).text, '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null}');
});

test('hostile requests: each a clear JSON-RPC error, the server answering after them', async () => {
  const big = await post(served.base, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(70_000)] }));
  assert.equal(big.status, 413);
  assert.equal(big.json.error.code, -32600);
  assert.match(big.json.error.message, /over 65536 bytes/);
  const batch = await post(served.base, Array.from({ length: 6 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })));
  assert.equal(batch.status, 400);
  assert.equal(batch.text, '{"error":{"code":-32203,"message":"Batch request amount 6 exceeds max 5"},"jsonrpc":"2.0","id":null}');
  const deep = await post(served.base, `${'['.repeat(5000)}${']'.repeat(5000)}`);
  assert.equal(deep.json.error.code, -32700);
  assert.match(deep.json.error.message, /nested deeper than 32/);
  for (const bad of ['{"jsonrpc":', '']) {
    const res = await post(served.base, bad);
    assert.equal(res.text, '{"error":{"message":"Parse error","code":-32700},"jsonrpc":"2.0","id":null}', bad);
  }
  // JSON that is no request and an empty batch: one Invalid Request (JSON-RPC 2.0), HTTP 400
  for (const bad of ['null', '12', '"text"', 'true', '[]', ' [ ] ']) {
    const res = await post(served.base, bad);
    assert.equal(res.status, 400, bad);
    assert.equal(res.text, '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null}', bad);
  }
  // a method that is not a string: Invalid Request, alone and in a batch, with the request's id
  const numbered = await post(served.base, { jsonrpc: '2.0', id: 7, method: 123 });
  assert.equal(numbered.status, 400);
  assert.equal(numbered.text, '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":7}');
  const mixed = await post(served.base, [{ jsonrpc: '2.0', id: 8, method: ['eth_chainId'] }, { jsonrpc: '2.0', id: 9, method: 'eth_chainId' }, 42]);
  assert.deepEqual(
    mixed.json.map((a: any) => a.error?.code ?? a.result),
    [-32600, '0x12a', -32600],
  );
  const form = await post(served.base, 'a=1', { 'content-type': 'application/x-www-form-urlencoded' });
  assert.equal(form.status, 415);
  assert.match(form.json.error.message, /not JSON; send application\/json/);
  const plain = await post(served.base, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { 'content-type': 'text/plain' });
  assert.equal(plain.json.result, '0x12a');
  const get = await fetch(`${served.base}/rpc`);
  assert.equal(get.status, 400);
  assert.equal(await get.text(), '{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null}');
  assert.equal((await call(served.base, 'eth_chainId')).json.result, '0x12a');
});

test('eth_getLogs: the relay 7-day timestamp limit, before the block limit and with one address; rpc.timestampRangeLimit lifts it', async () => {
  // a block 8 days before the demo's first, far more than 1,000 blocks before the newest
  const [first] = await database.db.query<{ start: string }>(sql`select min(consensus_start)::text as start from record_file`);
  const start = BigInt(first!.start) - 8n * 86_400_000_000_000n;
  await database.db.query(
    sql`insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count, digest_algorithm, version, file_hash, index, node_id)
      values ('old.rcd', 0, 0, ${'ef'.repeat(48)}, '', ${start.toString()}, ${(start + 5n).toString()}, 1, 0, 6, '', 1000, 3)`,
  );
  const [last] = await database.db.query<{ end: string }>(sql`select consensus_end::text as end from record_file where index = ${logBlock.toString()}`);
  const seconds = (ns: bigint) => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
  const message = `The provided fromBlock and toBlock contain timestamps that exceed the maximum allowed duration of 7 days (604800 seconds): fromBlock: 0x3e8 (${seconds(start)}), toBlock: ${hex(logBlock)} (${seconds(BigInt(last!.end))})`;
  const [address] = await database.db.query<{ a: string }>(
    sql`select encode(e.evm_address, 'hex') as a from contract_log l join entity e on e.id = l.contract_id where e.evm_address is not null limit 1`,
  );
  for (const filter of [{}, { address: `0x${address!.a}` }, { address: [`0x${address!.a}`] }]) {
    const res = await call(served.base, 'eth_getLogs', [{ fromBlock: '0x3e8', toBlock: hex(logBlock), ...filter }]);
    assert.equal(res.status, 400, JSON.stringify(filter));
    assert.deepEqual([res.json.error.code, unprefixed(res.json.error.message)], [-32004, message], JSON.stringify(filter));
  }
  // fromBlock after toBlock: the timestamps' difference is negative, -39013
  const reversed = await call(served.base, 'eth_getLogs', [{ fromBlock: hex(logBlock), toBlock: '0x3e8' }]);
  assert.equal(reversed.json.error.code, -39013);
  // without the timestamp limit one address answers the whole range, other filters meet the block limit
  const lifted = await serveRpc(database.db, { HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0', HIERO_MIRROR_REST_RPC_PAGESIZE: '2' });
  try {
    const one = await call(lifted.base, 'eth_getLogs', [{ fromBlock: '0x3e8', toBlock: hex(logBlock), address: `0x${address!.a}` }]);
    assert.equal(one.status, 200);
    assert.ok(one.json.result.length > 2, 'the logs of the contract, in several pages');
    assert.equal((await call(lifted.base, 'eth_getLogs', [{ fromBlock: '0x3e8', toBlock: hex(logBlock) }])).json.error.code, -32000);
  } finally {
    await lifted.close();
  }
});

test('eth_getLogs: deeply nested topics pass the relay validator as their one value; over 7 days its -32004 at once', async () => {
  const logs = (await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock) }])).json.result as any[];
  const topic = logs[0]!.topics[0] as string;
  const flat = (await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), topics: [topic] }])).json.result;
  assert.ok(flat.length > 0);
  assert.deepEqual((await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), topics: [[[topic]]] }])).json.result, flat);
  assert.deepEqual((await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), topics: [[[[topic]], `0x${'ee'.repeat(32)}`]] }])).json.result, flat);
  const two = await call(served.base, 'eth_getLogs', [{ fromBlock: hex(earlierBlock), toBlock: hex(logBlock), topics: [[[topic, topic]]] }]);
  assert.equal(two.status, 400);
  assert.equal(
    unprefixed(two.json.error.message),
    `Invalid parameter 'topics' for FilterObject: Expected an array or array of arrays containing Expected 0x prefixed string representing the hash (32 bytes) of a topic, value: ${JSON.stringify([[[topic, topic]]])}`,
  );
  // the harness's case (#53): one 0X-spelled address, a nested topic, more than 7 days (block 1000 is 8 days older, inserted above)
  const started = Date.now();
  const wide = await call(served.base, 'eth_getLogs', [{ fromBlock: '0x3e8', toBlock: hex(logBlock), address: logs[0]!.address.replace(/^0x/, '0X'), topics: [[[topic]]] }]);
  assert.equal(wide.status, 400);
  assert.equal(wide.json.error.code, -32004);
  assert.ok(Date.now() - started < 5000);
});

test('POST /rpc under the HTTP admission: beyond the requests in flight, the 503 of every shed request; admitted again after', async () => {
  // a pool of 1 and 1 request queued: 2 in flight; each read of the newest block takes 300 ms
  const slow = await serveRpc(delayingDb(database.db, (text) => (/from record_file/.test(text) ? 300 : 0)), {
    HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0',
  });
  try {
    const held = [call(slow.base, 'eth_blockNumber'), call(slow.base, 'eth_blockNumber')];
    await new Promise((resolve) => setTimeout(resolve, 100));
    const res = await fetch(`${slow.base}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }) });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '1');
    assert.equal(await res.text(), '{"_status":{"messages":[{"message":"Service unavailable"}]}}');
    for (const answer of await Promise.all(held)) assert.equal(answer.status, 200);
    assert.equal((await call(slow.base, 'eth_chainId')).json.result, '0x12a');
    assert.match(await (await fetch(`${slow.base}/metrics`)).text(), /http_requests_shed_total\{reason="limit"\} 1/);
  } finally {
    await slow.close();
  }
});

test('POST /rpc under the HTTP admission: an answer of many pages leaves the limit once it streams', async () => {
  // a limit of 2 in flight; each page of logs (1 log) read 20 ms late: the demo's whole range, some
  // 1,200 pages, streams for seconds
  const slow = await serveRpc(delayingDb(database.db, (text) => (/from contract_log/.test(text) ? 20 : 0)), {
    HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEDREQUESTS: '1',
    HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false',
    HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0',
    HIERO_MIRROR_REST_RPC_PAGESIZE: '1',
    HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0',
    HIERO_MIRROR_REST_RPC_BLOCKRANGELIMIT: '100000000',
  });
  const aborts = [new AbortController(), new AbortController()];
  try {
    const [range] = await database.db.query<{ first: string; last: string }>(sql`select min(index)::text as first, max(index)::text as last from record_file`);
    const whole = { fromBlock: hex(BigInt(range!.first)), toBlock: hex(BigInt(range!.last)) };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [whole] });
    // both answers have begun (their heads came) and go on streaming
    const streams = await Promise.all(aborts.map((a) => fetch(`${slow.base}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: a.signal })));
    for (const res of streams) assert.equal(res.status, 200);
    assert.equal((await call(slow.base, 'eth_chainId')).status, 200, 'admitted: the streams left the limit');
  } finally {
    for (const a of aborts) a.abort();
    await slow.close();
  }
});
