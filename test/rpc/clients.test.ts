/**
 * Real clients against /rpc on the demo network with new blocks written while they listen
 * (src/demo/live.ts, as `npm start -- --live` does): ethers v6 and viem over HTTP (getLogs with
 * address and topics, newFilter + getFilterChanges) and over the WebSocket (viem's
 * watchContractEvent, ethers' contract.on and provider.on('block')), plus the WebSocket's own rules.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Contract, JsonRpcProvider, WebSocketProvider } from 'ethers';
import { createPublicClient, http, parseAbiItem, webSocket } from 'viem';
import WebSocket from 'ws';
import { sql } from '../../src/db/sql.ts';
import { writeBlock } from '../../src/demo/live.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, serveRpc } from './support.ts';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const NS = 1_000_000_000n;

let database: TestDatabase;
let served: Served;
/** The contract of the newest Transfer log, and that log's block. */
let token: `0x${string}`;
let block: bigint;
let writing: NodeJS.Timeout | undefined;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  served = await serveRpc(database.db, { HIERO_MIRROR_REST_RPC_WS_MAXSUBSCRIPTIONSPERCONNECTION: '3', HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '20' });
  const [log] = await database.db.query<{ address: string; ts: string }>(
    sql`select encode(coalesce(e.evm_address, decode(lpad(to_hex(cl.contract_id), 40, '0'), 'hex')), 'hex') as address, cl.consensus_timestamp::text as ts
      from contract_log cl left join entity e on e.id = cl.contract_id where cl.topic0 = ${Buffer.from(TRANSFER_TOPIC.slice(2), 'hex')} order by cl.consensus_timestamp desc limit 1`,
  );
  token = `0x${log!.address}`;
  const [file] = await database.db.query<{ i: string }>(sql`select index::text as i from record_file where consensus_end >= ${log!.ts} order by consensus_end limit 1`);
  block = BigInt(file!.i);
});
after(async () => {
  clearInterval(writing);
  await served?.close();
  await database?.close();
});

/** New blocks every 300 ms, stamped after the newest one (the demo's live activity). */
function writeBlocks(): void {
  writing ??= setInterval(async () => {
    const [row] = await database.db.query<{ end: string }>(sql`select max(consensus_end)::text as end from record_file`);
    await writeBlock(database.db, BigInt(row!.end) + 2n * NS).catch(() => {});
  }, 300);
}

test('ethers and viem over HTTP: getLogs with address and topics, the chain id, filters', async () => {
  const provider = new JsonRpcProvider(`${served.base}/rpc`, undefined, { staticNetwork: true, batchMaxCount: 1 });
  assert.equal((await provider.send('eth_chainId', [])), '0x12a');
  const filter = { address: token, topics: [TRANSFER_TOPIC], fromBlock: Number(block), toBlock: Number(block) };
  const logs = await provider.getLogs(filter);
  assert.ok(logs.length > 0);
  for (const log of logs) assert.equal(log.address.toLowerCase(), token);
  const client = createPublicClient({ transport: http(`${served.base}/rpc`) });
  assert.equal(await client.getChainId(), 298);
  const events = await client.getLogs({ address: token, event: TRANSFER, fromBlock: block, toBlock: block });
  assert.equal(events.length, logs.length);
  assert.equal(typeof events[0]!.args.value, 'bigint');
  const created = await client.createEventFilter({ address: token, event: TRANSFER, fromBlock: block, toBlock: block });
  assert.equal((await client.getFilterChanges({ filter: created })).length, logs.length);
  provider.destroy();
});

test('ethers with a default JsonRpcProvider over HTTP: its batches of filter calls are answered, contract.on and provider.on(filter) receive new logs', async () => {
  // ethers batches eth_chainId with eth_newFilter, then polls eth_getFilterChanges in batches: the relay
  // refuses filter methods in a batch (-32007), which left ethers printing "could not coalesce error"
  // on every poll, receiving nothing, until an unhandled rejection ended the process
  const rejections: unknown[] = [];
  const onRejection = (err: unknown) => rejections.push(err);
  process.on('unhandledRejection', onRejection);
  const provider = new JsonRpcProvider(`${served.base}/rpc`, undefined, { pollingInterval: 250 });
  try {
    const contract = new Contract(token, ['event Transfer(address indexed from, address indexed to, uint256 value)'], provider);
    const fromContract: unknown[] = [];
    const fromFilter: unknown[] = [];
    await contract.on('Transfer', (...args) => fromContract.push(args));
    await provider.on({ address: token, topics: [TRANSFER_TOPIC] }, (log) => fromFilter.push(log));
    writeBlocks();
    const deadline = Date.now() + 30_000;
    while ((fromContract.length === 0 || fromFilter.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fromContract.length > 0, 'contract.on got Transfer logs');
    assert.ok(fromFilter.length > 0, 'provider.on(filter) got logs');
  } finally {
    provider.destroy();
    process.off('unhandledRejection', onRejection);
  }
  assert.deepEqual(rejections, []);
});

test('viem watchContractEvent and ethers contract.on / provider.on over the WebSocket receive new logs and blocks', async () => {
  const url = `${served.base.replace('http', 'ws')}/rpc`;
  const client = createPublicClient({ transport: webSocket(url, { reconnect: false }) });
  const viemLogs: unknown[] = [];
  const unwatch = client.watchContractEvent({ address: token, abi: [TRANSFER], eventName: 'Transfer', onLogs: (logs) => viemLogs.push(...logs) });
  const provider = new WebSocketProvider(url, undefined, { staticNetwork: true });
  const contract = new Contract(token, ['event Transfer(address indexed from, address indexed to, uint256 value)'], provider);
  const ethersLogs: unknown[] = [];
  await contract.on('Transfer', (...args) => ethersLogs.push(args));
  const blocks: number[] = [];
  await provider.on('block', (n: number) => blocks.push(n));
  writeBlocks();
  const deadline = Date.now() + 30_000;
  while ((viemLogs.length === 0 || ethersLogs.length === 0 || blocks.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  unwatch();
  (await client.transport.getRpcClient()).close();
  await provider.destroy();
  assert.ok(viemLogs.length > 0, 'viem got Transfer logs');
  assert.ok(ethersLogs.length > 0, 'ethers got Transfer logs');
  assert.ok(blocks.length > 0, 'ethers got new blocks');
});

/** A raw WebSocket client: its messages as text. */
async function raw(): Promise<{ socket: WebSocket; next: () => Promise<string>; closed: Promise<number> }> {
  const socket = new WebSocket(`${served.base.replace('http', 'ws')}/rpc`);
  const queue: string[] = [];
  const waiting: Array<(text: string) => void> = [];
  socket.on('message', (data) => {
    const text = data.toString();
    const take = waiting.shift();
    if (take) take(text);
    else queue.push(text);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, closed, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiting.push(resolve))) };
}

test('the WebSocket: relay answers, its method list, subscription limits, bad JSON, unsubscribe', async () => {
  const { socket, next } = await raw();
  const send = (value: unknown) => socket.send(typeof value === 'string' ? value : JSON.stringify(value));
  send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
  assert.equal(await next(), '{"result":"0x12a","jsonrpc":"2.0","id":1}');
  send({ jsonrpc: '2.0', id: 2, method: 'net_version' });
  assert.equal(await next(), '{"error":{"message":"Method net_version not found","code":-32601},"jsonrpc":"2.0","id":2}');
  send({ jsonrpc: '2.0', id: 2, method: '' });
  assert.equal(await next(), '{"error":{"message":"Method  not found","code":-32601},"jsonrpc":"2.0","id":2}');
  send('{nope');
  assert.equal(await next(), '{"code":-32600,"message":"Invalid request"}');
  // an empty batch, JSON that is no request, a method that is not a string: Invalid Request (JSON-RPC 2.0)
  for (const bad of ['[]', '42', 'null', '{"jsonrpc":"2.0","id":4,"method":123}']) {
    send(bad);
    assert.equal(await next(), `{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":${bad.includes('"id":4') ? 4 : 'null'}}`, bad);
  }
  send({ jsonrpc: '2.0', id: 3, method: 'eth_subscribe', params: ['pendingTransactions'] });
  assert.equal(await next(), '{"error":{"code":-32601,"message":"Unsupported JSON-RPC method"},"jsonrpc":"2.0","id":3}');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    send({ jsonrpc: '2.0', id: 10 + i, method: 'eth_subscribe', params: ['logs', { topics: [`0x${String(i).repeat(64)}`] }] });
    ids.push(JSON.parse(await next()).result);
  }
  send({ jsonrpc: '2.0', id: 20, method: 'eth_subscribe', params: ['newHeads'] });
  assert.equal(await next(), '{"error":{"code":-32608,"message":"Exceeded maximum allowed subscriptions"},"jsonrpc":"2.0","id":20}');
  send({ jsonrpc: '2.0', id: 21, method: 'eth_unsubscribe', params: [ids[0]] });
  assert.equal(await next(), '{"result":true,"jsonrpc":"2.0","id":21}');
  send({ jsonrpc: '2.0', id: 22, method: 'eth_unsubscribe', params: [ids[0]] });
  assert.equal(await next(), '{"result":false,"jsonrpc":"2.0","id":22}');
  // an id that is no string matches none; no id (the ws-server's falsy `params[0]`) ends them all
  send({ jsonrpc: '2.0', id: 24, method: 'eth_unsubscribe', params: [[ids[1]]] });
  assert.equal(await next(), '{"result":false,"jsonrpc":"2.0","id":24}');
  send({ jsonrpc: '2.0', id: 25, method: 'eth_unsubscribe', params: [] });
  assert.equal(await next(), '{"result":true,"jsonrpc":"2.0","id":25}');
  send({ jsonrpc: '2.0', id: 26, method: 'eth_unsubscribe', params: [ids[1]] });
  assert.equal(await next(), '{"result":false,"jsonrpc":"2.0","id":26}');
  send({ jsonrpc: '2.0', id: 23, method: 'eth_subscribe', params: ['logs', { address: `0x${'ab'.repeat(20)}` }] });
  // the request id once (the ws-server writes it twice: docs/compatibility.md)
  assert.match(
    await next(),
    /^\{"error":\{"code":-32602,"message":"\[Request ID: [^\]\[]+\] Invalid parameter filters\.address: 0x(ab){20} is not a valid contract or token type or does not exists"\},"jsonrpc":"2\.0","id":23\}$/,
  );
  // a long-zero address too must name a contract (or a token)
  send({ jsonrpc: '2.0', id: 27, method: 'eth_subscribe', params: ['logs', { address: `0x${'0'.repeat(32)}7fffffff` }] });
  assert.match(await next(), /^\{"error":\{"code":-32602,"message":"\[Request ID: [^\]\[]+\] Invalid parameter filters\.address: 0x0{32}7fffffff is not a valid/);
  // a deleted contract's EVM address is subscribed to, as the relay does (its /contracts/{address} finds it)
  await database.db.exec(`insert into entity (id, num, realm, shard, type, deleted, evm_address, timestamp_range)
    values (9999001, 9999001, 0, 0, 'CONTRACT', true, decode('${'cd'.repeat(20)}', 'hex'), '[1,)')`);
  send({ jsonrpc: '2.0', id: 28, method: 'eth_subscribe', params: ['logs', { address: `0x${'cd'.repeat(20)}` }] });
  assert.match(await next(), /^\{"result":"0x[0-9a-f]{32}","jsonrpc":"2\.0","id":28\}$/);
  send({ jsonrpc: '2.0', id: 29, method: 'eth_unsubscribe', params: [] });
  assert.equal(await next(), '{"result":true,"jsonrpc":"2.0","id":29}');
  // in a batch each item is answered as it would be alone (the ws-server refuses its filter methods
  // there, -32007: docs/compatibility.md): a method off the WebSocket's list, a request without jsonrpc,
  // and eth_newFilter, which the WebSocket serves
  send([
    { jsonrpc: '2.0', id: 28, method: 'eth_getFilterChanges', params: ['0x1'] },
    { id: 29, method: 'eth_newFilter' },
    { jsonrpc: '2.0', id: 30, method: 'eth_newFilter', params: [{ address: token }] },
  ]);
  assert.match(
    await next(),
    /^\[\{"error":\{"message":"Method eth_getFilterChanges not found","code":-32601\},"jsonrpc":"2\.0","id":28\},\{"error":\{"message":"Invalid Request","code":-32600\},"jsonrpc":"2\.0","id":29\},\{"result":"0x[0-9a-f]{32}","jsonrpc":"2\.0","id":30\}\]$/,
  );
  send(Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })));
  assert.equal(await next(), '[{"error":{"code":-32203,"message":"Batch request amount 21 exceeds max 20"},"jsonrpc":"2.0","id":null}]');
  socket.close();
});
