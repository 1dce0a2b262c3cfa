/** The relay v0.69.3's parameter checks (src/rpc/params.ts): every error, with its message, and the log view. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RpcError } from '../../src/rpc/errors.ts';
import { filterParam, hexParam, subscribeLogsParam } from '../../src/rpc/params.ts';
import { hash32, quantity, rpcLogJson, rpcLogPageBytes } from '../../src/rpc/logView.ts';
import type { LogRow } from '../../src/contracts/logs/rows.ts';
import type { ItemBlock } from '../../src/db/blocks.ts';
import { logView } from '../../src/contracts/logs/view.ts';
import { topicsOf } from '../../src/rpc/logSearch.ts';

const HASH = `0x${'ab'.repeat(32)}`;
const ADDRESS = `0x${'12'.repeat(20)}`;
const LIMITS = { maxAddresses: 3, maxTopicValues: 2 };

function fails(fn: () => unknown, code: number, message: string) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof RpcError);
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

test('the filter object: missing, null, not an object, unknown keys, blockHash with a block range', () => {
  fails(() => filterParam([], LIMITS), -32602, 'Missing value for required parameter 0');
  fails(() => filterParam(undefined, LIMITS), -32602, 'Missing value for required parameter 0');
  fails(() => filterParam({}, LIMITS), -32602, 'Missing value for required parameter 0');
  fails(() => filterParam([null], LIMITS), -32602, 'Invalid parameter 0: The value passed is not valid: null.');
  fails(() => filterParam(['latest'], LIMITS), -32602, 'Invalid parameter 0: Expected FilterObject, value: latest');
  fails(() => filterParam([[1]], LIMITS), -32602, 'Invalid parameter 0: Expected FilterObject, value: [1]');
  fails(() => filterParam([{ foo: 1 }], LIMITS), -32602, "Invalid parameter 'foo' for FilterObject: Unknown parameter");
  fails(() => filterParam([{ blockHash: HASH, fromBlock: '0x1' }], LIMITS), -32602, "Invalid parameter 0: Can't use both blockHash and toBlock/fromBlock");
  fails(() => filterParam([{ blockHash: HASH, toBlock: 'latest' }], LIMITS), -32602, "Invalid parameter 0: Can't use both blockHash and toBlock/fromBlock");
  fails(() => filterParam(null, LIMITS), -32603, "Error invoking RPC: Cannot read properties of null (reading '0')");
});

test('each property of the filter: its type and message, null included', () => {
  // the relay's BLOCK_HASH_ERROR says "Expected" twice
  const blockHash = 'Expected Expected 0x prefixed string representing the hash (32 bytes) of a block';
  fails(() => filterParam([{ blockHash: '0x12' }], LIMITS), -32602, `Invalid parameter 'blockHash' for FilterObject: ${blockHash}, value: 0x12`);
  fails(() => filterParam([{ blockHash: null }], LIMITS), -32602, `Invalid parameter 'blockHash' for FilterObject: ${blockHash}, value: null`);
  const blockNumber = 'Expected 0x prefixed hexadecimal block number, or the string "latest", "earliest" or "pending"';
  for (const bad of ['0x', '0x01', '12', 'LATEST', '0x20000000000000', 5]) {
    fails(() => filterParam([{ fromBlock: bad }], LIMITS), -32602, `Invalid parameter 'fromBlock' for FilterObject: ${blockNumber}, value: ${bad}`);
  }
  fails(() => filterParam([{ toBlock: { a: 1 } }], LIMITS), -32602, `Invalid parameter 'toBlock' for FilterObject: ${blockNumber}, value: {"a":1}`);
  for (const good of ['0x0', '0x1f', '0X1F', '0x1fffffffffffff', 'earliest', 'latest', 'pending', 'safe', 'finalized']) filterParam([{ fromBlock: good }], LIMITS);
  const address = 'Expected 0x prefixed string representing the address (20 bytes) or an array of addresses';
  fails(() => filterParam([{ address: '0x12' }], LIMITS), -32602, `Invalid parameter 'address' for FilterObject: ${address}, value: 0x12`);
  fails(() => filterParam([{ address: [ADDRESS, '0x1'] }], LIMITS), -32602, `Invalid parameter 'address' for FilterObject: ${address}, value: ["${ADDRESS}","0x1"]`);
  filterParam([{ address: [ADDRESS, [ADDRESS]] }], LIMITS);
  filterParam([{ address: [] }], LIMITS);
  const topics = 'Expected an array or array of arrays containing Expected 0x prefixed string representing the hash (32 bytes) of a topic';
  fails(() => filterParam([{ topics: HASH }], LIMITS), -32602, `Invalid parameter 'topics' for FilterObject: ${topics}, value: ${HASH}`);
  fails(() => filterParam([{ topics: [[HASH, '0x1']] }], LIMITS), -32602, `Invalid parameter 'topics' for FilterObject: ${topics}, value: [["${HASH}","0x1"]]`);
  filterParam([{ topics: [null, [HASH, null], HASH] }], LIMITS);
});

test('filter ids: the hex type', () => {
  fails(() => hexParam([]), -32602, 'Missing value for required parameter 0');
  fails(() => hexParam([null]), -32602, 'Invalid parameter 0: The value passed is not valid: null.');
  fails(() => hexParam(['zz']), -32602, 'Invalid parameter 0: Expected 0x prefixed hexadecimal value, value: zz');
  assert.equal(hexParam(['0xAbC']), '0xAbC');
});

test('eth_subscribe logs: address and topics only, checked under their own name', () => {
  assert.deepEqual(subscribeLogsParam({ address: ADDRESS, other: 1 }, LIMITS), { address: ADDRESS });
  fails(() => subscribeLogsParam({ topics: 'x' }, LIMITS), -32602, "Invalid parameter 'topics' for EthSubscribeLogsParamsObject: Expected an array or array of arrays containing Expected 0x prefixed string representing the hash (32 bytes) of a topic, value: x");
});

test('topics: null is any, an array is OR, values as the importer stores them (leading zero bytes trimmed)', () => {
  const topics = topicsOf([null, [`0x${'00'.repeat(31)}01`, HASH], null, HASH, HASH]);
  assert.deepEqual([...topics.keys()], ['topic1', 'topic3']);
  assert.deepEqual(topics.get('topic1')!.map((b) => b.toString('hex')), ['01', 'ab'.repeat(32)]);
  // null inside an OR array: that position matches any value
  assert.deepEqual([...topicsOf([HASH, [HASH, null]]).keys()], ['topic0']);
});

test('the log view: the relay key order and hex forms', () => {
  assert.equal(quantity(0), '0x0');
  assert.equal(quantity(255n), '0xff');
  assert.equal(hash32(`0x${'1'.repeat(96)}`), `0x${'1'.repeat(64)}`);
  const json = rpcLogJson({
    address: ADDRESS,
    data: '0x01',
    index: 10,
    topics: [HASH],
    block_hash: `0x${'c'.repeat(96)}`,
    block_number: 80215594,
    transaction_hash: HASH,
    transaction_index: 3,
  });
  assert.equal(
    json,
    `{"address":"${ADDRESS}","blockHash":"0x${'c'.repeat(64)}","blockNumber":"0x4c7fe2a","data":"0x01","logIndex":"0xa","removed":false,"topics":["${HASH}"],"transactionHash":"${HASH}","transactionIndex":"0x3"}`,
  );
  assert.deepEqual(Object.keys(JSON.parse(json)), ['address', 'blockHash', 'blockNumber', 'data', 'logIndex', 'removed', 'topics', 'transactionHash', 'transactionIndex']);
});

test('a log straight from its row is the listings item shown as the relay shows it', () => {
  const row: LogRow = {
    bloom: 'ff',
    contract_id: '2001',
    consensus_timestamp: '1700000000000000001',
    data: '01',
    index: 10,
    root_contract_id: null,
    topic0: 'ab',
    topic1: null,
    topic2: 'cd'.repeat(32),
    topic3: null,
    transaction_hash: '12'.repeat(48),
    transaction_index: null,
    evm_address: null,
    block_consensus_start: null,
    block_consensus_end: null,
    block_number: null,
    block_hash: null,
  };
  const block: ItemBlock = { consensus_start: '1700000000000000000', consensus_end: '1700000000000000009', number: '9007199254740993', hash: 'e'.repeat(96), gas_used: null };
  const cases: [LogRow, ItemBlock | undefined][] = [
    [row, block],
    [{ ...row, evm_address: '00'.repeat(19) + '07', transaction_index: 0, data: '', transaction_hash: null }, block],
    [row, undefined],
  ];
  for (const [r, b] of cases) {
    assert.equal(rpcLogPageBytes([r], () => b).toString('utf8'), rpcLogJson(logView(r, b)));
  }
  assert.match(rpcLogPageBytes([row], () => block).toString('utf8'), /"address":"0x00000000000000000000000000000000000007d1","blockHash":"0xe{64}","blockNumber":"0x20000000000001"/);
});

test('the sizes of a filter: addresses and topic values counted before any is checked, at most 4 topics', () => {
  // a list over the limit is refused by its count, whatever its values (none is looked at)
  fails(() => filterParam([{ address: ['x', 'y', 'z', 'w'] }], LIMITS), -32602, "Invalid parameter 'address' for FilterObject: Expected at most 3 addresses, got 4");
  fails(() => filterParam([{ address: [ADDRESS, [ADDRESS, ADDRESS, ADDRESS]] }], LIMITS), -32602, "Invalid parameter 'address' for FilterObject: Expected at most 3 addresses, got 4");
  filterParam([{ address: [ADDRESS, ADDRESS, ADDRESS] }], LIMITS);
  fails(() => filterParam([{ topics: [null, null, null, null, HASH] }], LIMITS), -32602, "Invalid parameter 'topics' for FilterObject: Expected at most 4 topics, got 5");
  filterParam([{ topics: [null, null, null, HASH] }], LIMITS);
  fails(() => filterParam([{ topics: [HASH, [HASH, HASH, 'bad']] }], LIMITS), -32602, "Invalid parameter 'topics' for FilterObject: Expected at most 2 values in topic position 1, got 3");
  fails(
    () => subscribeLogsParam({ address: ['a', 'b', 'c', 'd'] }, LIMITS),
    -32602,
    "Invalid parameter 'address' for EthSubscribeLogsParamsObject: Expected at most 3 addresses, got 4",
  );
  fails(() => subscribeLogsParam({ topics: [1, 2, 3, 4, 5] }, LIMITS), -32602, "Invalid parameter 'topics' for EthSubscribeLogsParamsObject: Expected at most 4 topics, got 5");
});
