/**
 * The hand-written encoders of the large listings (format/json.ts Encoded) write exactly what toJson
 * writes for the same value: random rows with every nullable column null or not, ids of other
 * shards and realms, integers beyond 2^53, free text that JSON must escape, links that need escaping;
 * and eth_getLogs's log made straight from its row (src/rpc/logView.ts) is the text of its log item.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ResultRow, resultJson, resultView } from '../../src/contracts/common/result.ts';
import type { LogRow } from '../../src/contracts/logs/rows.ts';
import type { ItemBlock } from '../../src/db/blocks.ts';
import { logJson, logView } from '../../src/contracts/logs/view.ts';
import { encodeEntityId } from '../../src/format/entityId.ts';
import { Encoded, toJson } from '../../src/format/json.ts';
import { listingPage } from '../../src/http/request/listing.ts';
import { rpcLogJson, rpcLogPageBytes } from '../../src/rpc/logView.ts';
import { random } from '../../bench/lib/random.ts';

const rnd = random(20261127);
const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)]!;
const hexOf = (bytes: number) => Array.from({ length: bytes * 2 }, () => pick([...'0123456789abcdef'])).join('');
const maybe = <T>(value: T): T | null => (rnd() < 0.3 ? null : value);
const id = () => pick(['0', '1', '1001', String(3_004_321 + Math.floor(rnd() * 1000)), encodeEntityId(1n, 2n, 3n).toString(), encodeEntityId(0n, 0n, 274_877_906_943n).toString()]);
const int8Text = () => pick(['0', '1', '-1', '21000', '9007199254740991', '9007199254740993', '-9223372036854775808', '9223372036854775807']);
const freeText = () => pick(['', 'CONTRACT_REVERT_EXECUTED', 'say "no"', 'back\\slash', 'line\nbreak\ttab', 'nul\u0000byte', 'ünïcödé ✓', '\u2028\u2029', 'lone \ud800 surrogate', '</script>']);

function logRow(): LogRow {
  return {
    bloom: pick(['', hexOf(256)]),
    contract_id: id(),
    consensus_timestamp: pick(['1747958402309431709', '123', '0', '1000000000']),
    data: pick(['', hexOf(32), hexOf(3), hexOf(200)]),
    index: rnd() < 0.9 ? Math.floor(rnd() * 300) : pick([0, 15, 16, 2_147_483_647, 4_294_967_296, -1]),
    root_contract_id: maybe(id()),
    topic0: maybe(hexOf(32)),
    topic1: maybe(hexOf(pick([0, 1, 20, 32]))),
    topic2: maybe(hexOf(32)),
    topic3: maybe(hexOf(32)),
    transaction_hash: maybe(pick(['', hexOf(32), hexOf(48)])),
    transaction_index: maybe(rnd() < 0.9 ? Math.floor(rnd() * 500) : pick([0, 2_147_483_647, -1])),
    evm_address: maybe(hexOf(20)),
    block_consensus_start: null,
    block_consensus_end: null,
    block_number: null,
    block_hash: null,
  };
}

function block(): ItemBlock | undefined {
  if (rnd() < 0.2) return undefined;
  return { consensus_start: '1', consensus_end: '2', number: int8Text(), hash: pick([hexOf(48), '', 'odd"hash\\']), gas_used: null };
}

function resultRow(): ResultRow {
  return {
    amount: maybe(int8Text()),
    bloom: maybe(pick(['', hexOf(256)])),
    call_result: maybe(pick(['', hexOf(32), hexOf(1)])),
    consensus_timestamp: pick(['1747958402309431709', '5']),
    contract_id: id(),
    created_contract_ids: maybe(Array.from({ length: Math.floor(rnd() * 4) }, () => maybe(id()))),
    error_message: maybe(freeText()),
    function_parameters: maybe(pick(['', hexOf(68)])),
    function_result: null,
    gas_consumed: maybe(int8Text()),
    gas_limit: int8Text(),
    gas_used: maybe(int8Text()),
    sender_id: maybe(id()),
    transaction_hash: maybe(hexOf(32)),
    evm_address: maybe(hexOf(20)),
  };
}

test('a log item encodes as toJson writes it', () => {
  for (let i = 0; i < 3000; i++) {
    const view = logView(logRow(), block());
    assert.equal(logJson(view), toJson(view));
  }
});

test('a JSON-RPC log straight from its row is the text of its log item as the relay shows it', () => {
  for (let i = 0; i < 3000; i++) {
    const [row, file] = [logRow(), block()];
    assert.equal(rpcLogPageBytes([row], () => file).toString('utf8'), rpcLogJson(logView(row, file)));
  }
});

test("a page's JSON-RPC logs, the shared parts made once, are the bytes of each log's own text joined by commas", () => {
  for (let i = 0; i < 300; i++) {
    // a few contracts (a contract has one address) and a few blocks, shared by the page's logs
    const contracts = [...new Map(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => logRow()).map((row) => [row.contract_id, row])).values()];
    const files = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => block());
    const rows = Array.from({ length: Math.floor(rnd() * 12) }, () => {
      const { contract_id, evm_address } = pick(contracts);
      return { ...logRow(), contract_id, evm_address };
    });
    const fileOf = new Map(rows.map((row) => [row, pick(files)]));
    const blockOf = (row: LogRow) => fileOf.get(row);
    const texts = rows.map((row) => rpcLogJson(logView(row, blockOf(row))));
    const continued = rnd() < 0.5;
    assert.deepEqual(rpcLogPageBytes(rows, blockOf, continued), Buffer.from(`${continued && rows.length > 0 ? ',' : ''}${texts.join(',')}`, 'utf8'));
  }
});

test('a result item encodes as toJson writes it, its error message escaped', () => {
  for (let i = 0; i < 3000; i++) {
    const view = resultView(resultRow());
    assert.equal(resultJson(view), toJson(view));
  }
});

test('a listing is the bytes toJson writes for its value, links included, with or without an item encoder', () => {
  for (const next of [null, '/api/v1/contracts/0.0.1/results?limit=2&timestamp=lt:1.000000001', '/x?q="quoted"&b=\\&c=\u2028']) {
    for (const count of [0, 1, 25]) {
      const items = Array.from({ length: count }, () => resultView(resultRow()));
      const { body } = listingPage('results', items, next, resultJson);
      assert.ok(body instanceof Encoded);
      assert.equal(body.bytes().toString('utf8'), toJson(body.value));
      // without an item encoder, toJson writes each item: the same value, the same bytes
      const plain = listingPage('results', items, next).body;
      assert.ok(plain instanceof Encoded);
      assert.deepEqual(plain.value, body.value);
      assert.deepEqual(plain.bytes(), body.bytes());
    }
  }
});
