/** The JSON-RPC differential harness (bench/rpc): its verdicts, and cases that a seed decides. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateCase, KINDS } from '../../bench/rpc/cases.ts';
import { compareReplies, firstDifference } from '../../bench/rpc/compare.ts';
import { Picker } from '../../bench/rpc/filters.ts';
import { keptDifference } from '../../bench/rpc/kept.ts';
import type { Reply } from '../../bench/rpc/jsonRpc.ts';
import type { Pool } from '../../bench/rpc/sample.ts';
import { random } from '../../bench/lib/random.ts';

const reply = (text: string, status = 200): Reply => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, text, json, ms: 1, timedOut: false };
};

test('rpc difftest: verdicts', () => {
  const a = '{"jsonrpc":"2.0","id":1,"result":"0x127"}';
  assert.equal(compareReplies(reply(a), reply(a), false).verdict, 'same');
  assert.equal(compareReplies(reply(a), reply('{"jsonrpc": "2.0","id":1,"result":"0x127"}'), false).verdict, 'format');
  assert.equal(compareReplies(reply(a), reply('{"id":1,"jsonrpc":"2.0","result":"0x127"}'), false).verdict, 'key-order');
  assert.equal(compareReplies(reply(a), reply(a, 400), false).verdict, 'status');
  const differ = compareReplies(reply(a), reply('{"jsonrpc":"2.0","id":1,"result":"0x128"}'), false);
  assert.equal(differ.verdict, 'differ');
  assert.match(differ.detail!, /\$\.result: "0x127" vs "0x128"/);
  const timedOut: Reply = { status: 0, text: '', json: undefined, ms: 30_000, timedOut: true };
  assert.deepEqual(compareReplies(reply(a), timedOut, false), { verdict: 'timeout', detail: 'B timed out' });
});

test('rpc difftest: filter ids compare by shape', () => {
  const id = (hex: string) => reply(`{"jsonrpc":"2.0","id":1,"result":"0x${hex}"}`);
  assert.equal(compareReplies(id('ab'.repeat(16)), id('cd'.repeat(16)), true).verdict, 'same-masked');
  assert.equal(compareReplies(id('ab'.repeat(16)), id('cd'.repeat(16)), false).verdict, 'differ');
  assert.equal(compareReplies(id('ab'.repeat(16)), id('1'), true).verdict, 'differ');
});

test('rpc difftest: the differences kept on purpose are named, any other is not (A the relay, B this endpoint)', () => {
  const invalid = (id: unknown) => reply(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":{"code":-32600,"message":"Invalid Request"}}`, 400);
  // the three of issue 58: [], a body that is no object, a method that is no string
  assert.equal(keptDifference([], reply('[]'), invalid(null), false), 'empty-batch');
  assert.equal(keptDifference('42', reply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', 400), invalid(null), false), 'not-an-object');
  const numeric = { jsonrpc: '2.0', id: 7, method: 123, params: [] };
  assert.equal(keptDifference(numeric, reply('{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method 123 not found"}}', 400), invalid(7), false), 'method-not-a-string');
  // five topics: the relay drops the fifth, this endpoint says why it refuses
  const five = { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ topics: [null, null, null, null, topic(1)] }] };
  const refused = reply('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid parameter 0: \'topics\' for FilterObject: Expected at most 4 topics, got 5"}}', 400);
  assert.equal(keptDifference(five, reply('{"jsonrpc":"2.0","id":1,"result":[]}'), refused, false), 'topics-over-4');
  // a batch: kept when each item is equal or kept
  const chain = { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] };
  const chainAnswer = '{"jsonrpc":"2.0","id":2,"result":"0x127"}';
  const relayBatch = reply(`[${chainAnswer},{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method 123 not found"}}]`);
  assert.equal(keptDifference([chain, numeric], relayBatch, reply(`[${chainAnswer},${invalid(7).text}]`), false), 'method-not-a-string');
  assert.equal(keptDifference([chain, numeric], relayBatch, reply(`[{"jsonrpc":"2.0","id":2,"result":"0x128"},${invalid(7).text}]`), false), undefined);
  // net_version with an object as params, in a batch: the relay's internal error
  const version = { jsonrpc: '2.0', id: 3, method: 'net_version', params: {} };
  const relayVersion = reply('[{"error":{"code":-32603,"message":"[Request ID: x] Error invoking RPC: rpcParams is not iterable"},"jsonrpc":"2.0","id":3}]');
  assert.equal(keptDifference([version], relayVersion, reply('[{"result":"295","jsonrpc":"2.0","id":3}]'), false), 'relay-params-not-iterable');
  // a filter method in a batch: the relay's -32007, this endpoint's answer
  const newFilter = { jsonrpc: '2.0', id: 4, method: 'eth_newFilter', params: [{}] };
  const refusedInBatch = reply('[{"error":{"code":-32007,"message":"Method eth_newFilter is not permitted as part of batch requests"},"jsonrpc":"2.0","id":4}]');
  assert.equal(keptDifference([newFilter], refusedInBatch, reply('[{"result":"0x25937bc28f57728fa77c8d1339c1dd96","jsonrpc":"2.0","id":4}]'), false), 'filter-in-batch');
  // the same answers for another request are a difference
  assert.equal(keptDifference([chain], reply('[]'), invalid(null), false), undefined);
  assert.equal(keptDifference(chain, reply(chainAnswer), reply('{"jsonrpc":"2.0","id":2,"result":"0x128"}'), false), undefined);
  // over a WebSocket the relay's ws-server drops some messages unanswered
  const silent: Reply = { status: 200, text: '(no answer)', json: undefined, ms: 10_000, timedOut: false };
  assert.equal(keptDifference(null, silent, invalid(null), true), 'relay-ws-no-answer');
  assert.equal(keptDifference(chain, silent, reply(chainAnswer), true), 'relay-ws-no-answer');
  assert.equal(keptDifference(chain, silent, reply(chainAnswer), false), undefined, 'only over a WebSocket');
  // several addresses in a logs subscription (the ws-server's default: one), and its unsubscribe after
  const subscribe = { jsonrpc: '2.0', id: 5, method: 'eth_subscribe', params: ['logs', { address: [address(1), address(2)] }] };
  const oneOnly = reply('{"error":{"code":-32602,"message":"Invalid parameter filters.address: Only one contract address is allowed"},"jsonrpc":"2.0","id":5}');
  assert.equal(keptDifference(subscribe, oneOnly, reply('{"result":"0x25937bc28f57728fa77c8d1339c1dd96","jsonrpc":"2.0","id":5}'), true), 'several-subscribe-addresses');
  const unsubscribe = { jsonrpc: '2.0', id: 6, method: 'eth_unsubscribe', params: ['0x25937bc28f57728fa77c8d1339c1dd96'] };
  const [no, yes] = [reply('{"result":false,"jsonrpc":"2.0","id":6}'), reply('{"result":true,"jsonrpc":"2.0","id":6}')];
  assert.equal(keptDifference(unsubscribe, no, yes, true, ['several-subscribe-addresses']), 'unsubscribe-of-a-kept-subscription');
  assert.equal(keptDifference(unsubscribe, no, yes, true), undefined, 'not after a subscription both took');
  const upper = { jsonrpc: '2.0', id: 7, method: 'eth_subscribe', params: ['logs', { address: `0X${address(3).slice(2)}` }] };
  const notValid = reply(`{"error":{"code":-32602,"message":"Invalid parameter filters.address: 0X${address(3).slice(2)} is not a valid contract or token type or does not exists"},"jsonrpc":"2.0","id":7}`);
  assert.equal(keptDifference(upper, notValid, reply('{"result":"0x25937bc28f57728fa77c8d1339c1dd96","jsonrpc":"2.0","id":7}'), true), 'subscribe-0X-address');
  // a batch with an item that is no request: its answer keeps its place
  const upstream = reply('[{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null},{"error":{"code":-32020,"data":"400","message":"Mirror node upstream failure"},"jsonrpc":"2.0","id":8}]');
  const logs = reply('[{"error":{"message":"Invalid Request","code":-32600},"jsonrpc":"2.0","id":null},{"result":[],"jsonrpc":"2.0","id":8}]');
  assert.equal(keptDifference([{}, { jsonrpc: '2.0', id: 8, method: 'eth_getLogs', params: [{}] }], upstream, logs, true), 'relay-upstream-failure');
});

test('rpc difftest: first difference names the path', () => {
  assert.equal(firstDifference({ r: [1, { x: 2 }] }, { r: [1, { x: 3 }] }), '$.r[1].x: 2 vs 3');
  assert.equal(firstDifference([1, 2], [1]), '$: length 2 vs 1');
  assert.equal(firstDifference({ a: 1 }, { a: 1, b: 2 }), '$.b: only in B (2)');
  assert.equal(firstDifference({ a: 1 }, { a: 1 }), undefined);
});

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const topic = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const pool: Pool = {
  firstBlock: 100,
  lastBlock: 10_000,
  blockHashes: [{ block: 200, hash: topic(200) }],
  logs: [1, 2, 3].map((n) => ({ block: 100 * n, address: address(n), topics: [topic(n), topic(n + 10)] })),
  denseAddresses: [address(1)],
  rareAddresses: [address(2)],
  absentAddresses: [address(9)],
  longZeroOfEvm: [address(8)],
  denseTopics: [topic(1)],
  rareTopics: [topic(2)],
};

test('rpc difftest: a seed decides the cases, and 2,000 of them hold every kind', async () => {
  const cases = (seed: number) => {
    const p = new Picker(random(seed), pool);
    return Array.from({ length: 2000 }, (_, i) => generateCase(p, i + 1));
  };
  const bodies = (seed: number) => cases(seed).map((c) => JSON.stringify(c.steps[0]!.body([])));
  assert.deepEqual(bodies(7), bodies(7));
  assert.notDeepEqual(bodies(7), bodies(8));
  const all = cases(7);
  assert.deepEqual(new Set(all.map((c) => c.kind)), new Set(KINDS));
  const shapes = all.map((c) => c.shape).join('\n');
  for (const s of ['range:1 ', 'range:1000 ', 'range:1001 ', 'blockHash', 'tags', 'address:array', 'or2', 'topics-five', 'from-after-to', 'blockHash-with-range', 'batch0']) {
    assert.ok(shapes.includes(s), `no case of shape ${s}`);
  }
});
