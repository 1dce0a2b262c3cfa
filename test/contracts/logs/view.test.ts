import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Box } from '../../../src/contracts/logs/params.ts';
import { logConditions, logsSql, pageAloneSql } from '../../../src/contracts/logs/query.ts';
import { INT32, INT64, rangeOf } from '../../../src/db/range.ts';
import { logView } from '../../../src/contracts/logs/view.ts';
import { toJson } from '../../../src/format/json.ts';
import type { LogRow } from '../../../src/contracts/logs/rows.ts';
import type { ItemBlock } from '../../../src/db/blocks.ts';
import { assignRecordFiles } from '../../../src/contracts/logs/blocks.ts';

/** A bytea value as the database layer delivers it: hex digits. */
const b = (hex: string) => hex;

const ROW: LogRow = {
  bloom: b('0123'),
  contract_id: '1000',
  consensus_timestamp: '1639010151000000000',
  data: b('0123'),
  index: 1,
  root_contract_id: '1001',
  topic0: b('97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750'),
  topic1: b('8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'),
  topic2: b('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'),
  topic3: null,
  transaction_hash: b('9db63968721fc76815d11b0b97734669bf88ae3810e07c199924553f0548eb99'),
  transaction_index: 2,
  evm_address: b('62cf9068fed962cf9068fed962cf9068fed9dddd'),
  block_consensus_start: null,
  block_consensus_end: null,
  block_number: null,
  block_hash: null,
};

const BLOCK: ItemBlock = {
  consensus_start: '1639010150000000000',
  consensus_end: '1639010152000000000',
  number: '2',
  gas_used: null,
  hash: 'fbd921184e229e2051280d827ba3b31599117af7eafba65dc0e5a998b70c48c0492bf793a150769b1b4fb2c9b7cb4c1b',
};

test('a log renders with the reference key order and formats', () => {
  assert.equal(
    toJson(logView(ROW, BLOCK)),
    '{"address":"0x62cf9068fed962cf9068fed962cf9068fed9dddd","bloom":"0x0123","contract_id":"0.0.1000",' +
      '"data":"0x0000000000000000000000000000000000000000000000000000000000000123","index":1,' +
      '"topics":["0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750",' +
      '"0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925",' +
      '"0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"],' +
      '"block_hash":"0xfbd921184e229e2051280d827ba3b31599117af7eafba65dc0e5a998b70c48c0492bf793a150769b1b4fb2c9b7cb4c1b",' +
      '"block_number":2,"root_contract_id":"0.0.1001","timestamp":"1639010151.000000000",' +
      '"transaction_hash":"0x9db63968721fc76815d11b0b97734669bf88ae3810e07c199924553f0548eb99","transaction_index":2}',
  );
});

test('null topics are skipped, empty values give 0x, padding rules per field', () => {
  const view = logView(
    {
      ...ROW,
      bloom: b(''),
      data: b(''),
      topic0: b('0a'),
      topic1: null,
      topic2: b(''),
      topic3: b('00'),
      transaction_hash: b('05'),
      transaction_index: null,
      root_contract_id: null,
      evm_address: null,
      contract_id: '18014948265295873', // 1.2.1
    },
    undefined,
  );
  assert.deepEqual(view.topics, [`0x${'0'.repeat(62)}0a`, '0x', `0x${'0'.repeat(64)}`]);
  assert.equal(view.bloom, '0x');
  assert.equal(view.data, '0x');
  assert.equal(view.transaction_hash, '0x05');
  assert.equal(logView({ ...ROW, transaction_hash: null }, undefined).transaction_hash, '0x');
  assert.equal(view.transaction_index, null);
  assert.equal(view.root_contract_id, null);
  assert.equal(view.contract_id, '1.2.1');
  assert.equal(view.address, '0x0000000100000000000000020000000000000001');
  assert.equal(view.block_hash, '0x');
  assert.equal(view.block_number, null);
  // data longer than 32 bytes is not cut; a huge block number stays exact
  const long = 'ab'.repeat(40);
  assert.equal(logView({ ...ROW, data: b(long) }, undefined).data, `0x${long}`);
  assert.equal(toJson(logView(ROW, { ...BLOCK, number: '9223372036854775807' }).block_number), '9223372036854775807');
});

test('record files are attributed like the reference merge', () => {
  const file = (start: number, end: number, index: number): ItemBlock => ({
    consensus_start: String(start),
    consensus_end: String(end),
    number: String(index),
    hash: `h${index}`,
    gas_used: null,
  });
  const files = [file(10, 20, 1), file(30, 40, 2), file(50, 60, 3)];
  const asc = assignRecordFiles(['10', '15', '25', '35', '60', '70'], files);
  assert.deepEqual(
    ['10', '15', '25', '35', '60', '70'].map((t) => asc.get(t)?.number ?? null),
    ['1', '1', null, '2', '3', null],
  );
  const desc = assignRecordFiles(['70', '60', '35', '25', '15', '10'], [...files].reverse());
  assert.deepEqual(
    ['70', '60', '35', '25', '15', '10'].map((t) => desc.get(t)?.number ?? null),
    [null, '3', '2', null, '1', '1'],
  );
  assert.equal(assignRecordFiles([], files).size, 0);
  assert.equal(assignRecordFiles(['5'], []).size, 0);
  // duplicates of a file (one per timestamp probe) count once
  assert.equal(assignRecordFiles(['11', '12'], [file(10, 20, 1), file(10, 20, 1)]).get('12')?.number, '1');
});

const box = (t: [bigint?, bigint?], i: [bigint?, bigint?] = []): Box => ({
  timestamp: rangeOf(
    [
      ...(t[0] !== undefined ? [{ operator: 'gte' as const, value: t[0] }] : []),
      ...(t[1] !== undefined ? [{ operator: 'lte' as const, value: t[1] }] : []),
    ],
    INT64,
  ),
  index: rangeOf(
    [
      ...(i[0] !== undefined ? [{ operator: 'gte' as const, value: i[0] }] : []),
      ...(i[1] !== undefined ? [{ operator: 'lte' as const, value: i[1] }] : []),
    ],
    INT32,
  ),
});

test('conditions: one box is plain bounds; several are OR-ed under their hull or probed by timestamp', () => {
  const topics = new Map([['topic1', [Buffer.from('0a', 'hex'), Buffer.from('0b', 'hex')]]] as const);
  const one = logConditions({ contractId: 5n, boxes: [box([1n, 9n])], topics }).compile();
  assert.equal(one.text, 'cl.contract_id = $1 and cl.topic1 = any($2::bytea[]) and cl.consensus_timestamp >= $3 and cl.consensus_timestamp <= $4');
  assert.deepEqual(one.values, ['5', [Buffer.from('0a', 'hex'), Buffer.from('0b', 'hex')], '1', '9']);
  const hull = logConditions({ contractId: 5n, boxes: [box([1n, 1n], [3n]), box([2n, 9n])], topics: new Map() }).compile();
  assert.equal(
    hull.text,
    'cl.contract_id = $1 and cl.consensus_timestamp >= $2 and cl.consensus_timestamp <= $3 and ' +
      '((cl.consensus_timestamp = $4 and cl.index >= $5) or (cl.consensus_timestamp >= $6 and cl.consensus_timestamp <= $7))',
  );
  assert.deepEqual(hull.values, ['5', '1', '9', '1', '3', '2', '9']);
  const probes = logConditions({ contractId: 5n, boxes: [box([9n, 9n], [3n]), box([1n, 1n], [undefined, 2n])], topics: new Map() }).compile();
  assert.equal(
    probes.text,
    'cl.contract_id = $1 and cl.consensus_timestamp = any($2::bigint[]) and ' +
      '((cl.consensus_timestamp = $3 and cl.index >= $4) or (cl.consensus_timestamp = $5 and cl.index <= $6))',
  );
  assert.deepEqual(probes.values[1], ['9', '1']);
  const network = logConditions({ contractId: 0n, boxes: [box([1n, 9n])], topics: new Map() }).compile();
  assert.equal(network.text, 'cl.consensus_timestamp >= $1 and cl.consensus_timestamp <= $2');
});

test('page: several range boxes are one ordered, limited scan each, merged; one box or timestamp probes stay one scan', () => {
  const base = { contractId: 0n, topics: new Map(), order: 'desc' as const, limit: 25, closeIntervalNs: 10n };
  const page = (text: string) => text.slice(0, text.indexOf('), edge as'));
  const ranges = page(logsSql({ ...base, boxes: [box([9n, 9n], [undefined, 2n]), box([1n, 8n])] }).compile().text);
  assert.equal(ranges.match(/from contract_log cl/g)?.length, 2);
  assert.match(ranges, /union all/);
  assert.doesNotMatch(ranges, / or /);
  const probes = page(logsSql({ ...base, boxes: [box([9n, 9n], [3n]), box([1n, 1n], [undefined, 2n])] }).compile().text);
  assert.equal(probes.match(/from contract_log cl/g)?.length, 1);
  const one = page(logsSql({ ...base, boxes: [box([1n, 9n])] }).compile().text);
  assert.equal(one.match(/from contract_log cl/g)?.length, 1);
});

test('the page alone (eth_getLogs): the boxes after a page and several contracts are ordered scans cut on (timestamp, index)', () => {
  const base = { contractId: 7n, topics: new Map(), order: 'asc' as const, limit: 1000, closeIntervalNs: 10n };
  const after = pageAloneSql({ ...base, boxes: [box([9n, 9n], [3n]), box([10n, 99n])] }, false).compile().text;
  assert.equal(after.match(/from contract_log cl/g)?.length, 2);
  assert.match(after, /union all/);
  assert.doesNotMatch(after, / or /);
  assert.equal(after.match(/order by cl\.consensus_timestamp asc, cl\.index asc\s+limit/g)?.length, 2);
  const several = pageAloneSql({ ...base, contractId: 0n, contractIds: [7n, 8n], boxes: [box([1n, 99n])] }, false).compile().text;
  assert.match(several, /cross join lateral/);
  assert.doesNotMatch(several, /= any/);
  // on Citus: one statement, no lateral
  const citus = pageAloneSql({ ...base, contractId: 0n, contractIds: [7n, 8n], boxes: [box([9n, 9n], [3n]), box([10n, 99n])] }, true).compile().text;
  assert.doesNotMatch(citus, /lateral|union/);
});
