/** Unit tests of GET /api/v1/contracts/{id}/results: parameter rules, protobuf decoding, the result view. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.ts';
import { convertFrom, parseResultsParams, transactionIndexes } from '../../../src/contracts/results/params.ts';
import { INT64, emptyRange, narrow, rangeOf } from '../../../src/db/range.ts';
import { senderAlias } from '../../../src/contracts/common/protobuf.ts';
import { resultsSql } from '../../../src/contracts/results/query.ts';
import { type ResultRow, fromAddress, resultView } from '../../../src/contracts/common/result.ts';
import { ClientError } from '../../../src/http/request/errors.ts';
import { parseBlockNumber, parseTimestamp } from '../../../src/http/request/values.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { toJson } from '../../../src/format/json.ts';
import { ALIAS, functionResult, hexBytes, lengthDelimited, varint, varintField } from './fixtures.ts';

const config = loadConfig({}, '/nonexistent');

function messages(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ClientError, String(err));
    return err.messages;
  }
  assert.fail('expected a ClientError');
}

const validate = (search: string) => parseResultsParams(parseQuery(search), config);
const blockNumberValue = (text: string) => parseBlockNumber(text)?.toString();

describe('parameter rules', () => {
  test('block.number: decimal within int64, or 0x hex read like JavaScript parseInt', () => {
    assert.equal(blockNumberValue('10'), '10');
    assert.equal(blockNumberValue('0010'), '10');
    assert.equal(blockNumberValue('0xa'), '10');
    assert.equal(blockNumberValue('0x1Z'), '1');
    assert.equal(blockNumberValue('0xFF'), '255');
    assert.equal(blockNumberValue('9223372036854775807'), '9223372036854775807');
    for (const bad of ['0XA', '0x', '0xZ', '-1', '9223372036854775808', '1.5', '', 'a', '0x7fffffffffffffff', '0xffffffffffffffffffff']) {
      assert.equal(blockNumberValue(bad), undefined, bad);
    }
  });

  test('from: entity ids, integers as num, long-zero and opaque addresses', () => {
    assert.deepEqual(convertFrom('8001', config), { kind: 'id', id: 8001n });
    assert.deepEqual(convertFrom('0.0.9001', config), { kind: 'id', id: 9001n });
    assert.deepEqual(convertFrom('1.9001', config), { kind: 'id', id: (1n << 38n) | 9001n });
    assert.deepEqual(convertFrom('0000000000000000000000000000000000002329', config), { kind: 'id', id: 9001n });
    assert.deepEqual(convertFrom('0x0000000000000000000000000000000000002329', config), { kind: 'id', id: 9001n });
    assert.deepEqual(convertFrom('0xFBB9a1be370150759408cd7af48e9eda2b8ead57', config), { kind: 'evm', hex: 'FBB9a1be370150759408cd7af48e9eda2b8ead57' });
    for (const bad of ['1234567890123', '-1', '274877906944', '0.65536.1', '1024.0.1']) {
      assert.deepEqual(messages(() => convertFrom(bad, config)), ['Invalid parameter: from'], bad);
    }
  });

  test('validation messages come in the reference order', () => {
    assert.deepEqual(
      messages(() =>
        validate(
          'block.hash=gte:0x1eaf1abbd64bbcac7f473f0272671c66d3d1d64f584112b11cd4d2063e736305&block.number=gte:10&transaction.index=gte:1&serialnumber=3',
        ),
      ),
      ['Invalid parameter: block.hash', 'Invalid parameter: block.number', 'Invalid parameter: transaction.index', 'Unknown query parameter: serialnumber'],
    );
    assert.deepEqual(messages(() => validate('transaction.index=1')), [
      'Invalid parameter usage: transaction.index - transaction.index requires block.number or block.hash filter to be specified',
    ]);
    assert.deepEqual(messages(() => validate(`block.hash=${'a'.repeat(64)}&block.number=1`)), [
      'Invalid parameter usage: block.hash - cannot combine block.number and block.hash',
    ]);
    assert.deepEqual(messages(() => validate('internal=yes&from=x&limit=0&order=up&timestamp=1:2&foo')), [
      'Invalid parameter: internal',
      'Invalid parameter: from',
      'Invalid parameter: limit',
      'Invalid parameter: order',
      'Invalid parameter: timestamp',
      'Unknown query parameter: foo',
    ]);
    for (const op of ['ne', 'lt', 'gt']) {
      assert.deepEqual(messages(() => validate(`internal=${op}:true`)), ['Invalid parameter: internal']);
    }
  });

  test('a conversion failure of from is reported alone, ahead of count and dependency messages', () => {
    const small = loadConfig({}, '/nonexistent', { query: { maxRepeatedQueryParameters: 3 } });
    const many = 'limit=1&limit=2&limit=3&limit=4';
    assert.deepEqual(messages(() => parseResultsParams(parseQuery(`from=1234567890123&${many}`), small)), ['Invalid parameter: from']);
    assert.deepEqual(messages(() => validate(`from=1234567890123&transaction.index=1`)), ['Invalid parameter: from']);
    assert.deepEqual(messages(() => parseResultsParams(parseQuery(`from=8001&${many}`), small)), [
      'Parameter values count exceeds maximum number allowed: limit count: 4 max: 3',
    ]);
    // an invalid value elsewhere: no conversion, only the validation messages
    assert.deepEqual(messages(() => validate(`from=1234567890123&limit=x`)), ['Invalid parameter: limit']);
  });

  test('valid queries: operators, case and repetition', () => {
    const params = validate(
      'from=gt:2001&from=0.0.2002&from=2003&internal=TRUE&internal=false&order=ASC&block.number=eq:0x10&transaction.index=3&transaction.index=eq:4',
    );
    assert.deepEqual(params.senders.map((s) => [s.operator, s.sender]), [
      ['gt', { kind: 'id', id: 2001n }],
      ['eq', { kind: 'id', id: 2002n }],
      ['eq', { kind: 'id', id: 2003n }],
    ]);
    assert.equal(params.internal, false);
    assert.deepEqual(params.paging, { limit: 25, order: 'asc' });
    assert.deepEqual(params.block, { kind: 'number', value: 16n });
    assert.deepEqual(transactionIndexes(params.transactionIndexes), [3, 4]);
    assert.equal(validate('internal=TRUE').internal, true);
    assert.deepEqual(validate(`block.hash=0x${'AB'.repeat(48)}`).block, { kind: 'hash', prefix: 'AB'.repeat(48) });
    assert.deepEqual(messages(() => transactionIndexes(validate('block.number=1&transaction.index=2147483648').transactionIndexes)), [
      'Invalid parameter: transaction.index',
    ]);
  });

  test('timestamp filters reduce to one interval, an in-list and exclusions', () => {
    const ts = (text: string) => parseTimestamp(text)!;
    const range = (search: string) => validate(search).timestamp;
    assert.deepEqual(range('timestamp=gt:1&timestamp=gte:1.5&timestamp=lte:9&timestamp=lt:8&timestamp=ne:3&timestamp=4&timestamp=5'), {
      lower: { value: ts('1.5'), inclusive: true },
      upper: { value: ts('8') - 1n, inclusive: true },
      eq: [ts('4'), ts('5')],
      ne: [ts('3')],
      empty: false,
    });
    assert.equal(range('timestamp=lt:1&timestamp=gt:2').empty, true);
    assert.equal(range('timestamp=gte:2&timestamp=lte:2').empty, false);
    assert.equal(range('timestamp=gte:2&timestamp=lte:3&timestamp=4').empty, true);
    assert.equal(narrow(emptyRange<bigint>(), 'gt', 9223372036854775807n, INT64).empty, true);
    assert.equal(narrow(emptyRange<bigint>(), 'lt', -9223372036854775808n, INT64).empty, true);
  });

  test('SQL: contract condition only for a non-zero id; single values stay plain comparisons', () => {
    const base = { timestamp: emptyRange<bigint>(), sender: emptyRange<bigint>(), transactionIndexes: [], internal: false, order: 'desc' as const, limit: 25 };
    const all = resultsSql({ ...base, contractId: 0n }).compile();
    assert.doesNotMatch(all.text, /contract_id = \$/);
    assert.match(all.text, /transaction_nonce = 0/);
    const noCondition = resultsSql({ ...base, contractId: 0n, internal: true }).compile();
    assert.match(noCondition.text, /where true\s/);
    const one = resultsSql({ ...base, contractId: 1001n, sender: rangeOf([{ operator: 'eq', value: 2001n }], INT64) }).compile();
    // the contract's address by its id ($1), then the page
    assert.match(one.text, /where e\.id = \$1\)/);
    assert.match(one.text, /contract_id = \$2 and sender_id = \$3 and transaction_nonce = 0/);
    const sender = rangeOf(
      [2001n, 2002n, 2002n].map((value) => ({ operator: 'eq' as const, value })),
      INT64,
    );
    const several = resultsSql({ ...base, contractId: 1001n, sender }).compile();
    assert.match(several.text, /unnest\(\$2::bigint\[\]\) as s\(id\)\s+cross join lateral/);
    assert.match(several.text, /contract_id = \$3 and sender_id = s\.id and transaction_nonce = 0/);
    assert.deepEqual(several.values, ['1001', ['2001', '2002'], '1001', 25, 25]);
  });
});

describe('protobuf sender alias', () => {
  test('alias of sender_id, or nothing', () => {
    assert.equal(Buffer.from(senderAlias(functionResult({ alias: ALIAS }))!).toString('hex'), ALIAS);
    assert.equal(senderAlias(functionResult({ accountNum: 5 })), undefined);
    assert.equal(senderAlias(functionResult(undefined)), undefined);
    assert.equal(senderAlias(Buffer.alloc(0)), undefined);
    assert.equal(senderAlias(Buffer.from(lengthDelimited(13, lengthDelimited(4, [])))), undefined);
  });

  test('undecodable bytes give nothing', () => {
    for (const bad of [[4, 4], [8, 8], [0x6a], [0x6a, 5, 0x22, 3, 1], [0x80], [0x0e], [0x0f, 1], [0x09, 1, 2, 3]]) {
      assert.equal(senderAlias(Buffer.from(bad)), undefined, JSON.stringify(bad));
    }
    // a known message field whose content does not decode as that message fails the whole decode
    const garbageContractId = lengthDelimited(1, [0x0f]);
    assert.equal(senderAlias(Buffer.from([...garbageContractId, ...lengthDelimited(13, lengthDelimited(4, hexBytes(ALIAS)))])), undefined);
    // deeply nested groups do not escape as an exception
    assert.equal(senderAlias(Buffer.from(Array.from({ length: 200_000 }, () => 0x0b))), undefined);
  });

  test('unknown fields are skipped by wire type; the last sender_id wins', () => {
    const sender = lengthDelimited(13, lengthDelimited(4, hexBytes(ALIAS)));
    const unknown = [
      ...varintField(100, 123456789),
      ...[0x81, 0x06, 1, 2, 3, 4, 5, 6, 7, 8], // field 96, fixed64
      ...[0x85, 0x06, 1, 2, 3, 4], // field 96, fixed32
      ...lengthDelimited(99, [1, 2, 3]),
      ...[0x8b, 0x06, ...varintField(1, 5), 0x8c, 0x06], // field 97, a group
      ...lengthDelimited(6, [...lengthDelimited(1, varintField(3, 7)), ...lengthDelimited(3, [1, 2]), ...lengthDelimited(3, [3])]),
      ...lengthDelimited(15, varintField(1, 3)),
    ];
    assert.equal(Buffer.from(senderAlias(Buffer.from([...unknown, ...sender]))!).toString('hex'), ALIAS);
    const later = lengthDelimited(13, varintField(3, 5));
    assert.equal(senderAlias(Buffer.from([...sender, ...later])), undefined);
    assert.equal(Buffer.from(senderAlias(Buffer.from([...later, ...sender]))!).toString('hex'), ALIAS);
    // int64 fields take up to 10 bytes
    assert.equal(Buffer.from(senderAlias(Buffer.from([...varintField(10, -1n), ...sender]))!).toString('hex'), ALIAS);
    assert.deepEqual(varint(300), [0xac, 0x02]);
  });
});

describe('result view', () => {
  const row: ResultRow = {
    amount: '30',
    bloom: '0303',
    call_result: '0404',
    consensus_timestamp: '787654000123456',
    contract_id: '5001',
    created_contract_ids: ['7001', '0'],
    error_message: '',
    function_parameters: '010102020303',
    function_result: null,
    gas_consumed: null,
    gas_limit: '9223372036854775807',
    gas_used: '102',
    sender_id: '8001',
    transaction_hash: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    evm_address: null,
  };

  test('keys, order and formats', () => {
    assert.equal(
      toJson(resultView(row)),
      '{"address":"0x0000000000000000000000000000000000001389","amount":30,"bloom":"0x0303","call_result":"0x0404",' +
        '"contract_id":"0.0.5001","created_contract_ids":["0.0.7001",null],"error_message":null,' +
        '"from":"0x0000000000000000000000000000000000001f41","function_parameters":"0x010102020303","gas_consumed":null,' +
        '"gas_limit":9223372036854775807,"gas_used":102,"timestamp":"787654.000123456",' +
        '"to":"0x0000000000000000000000000000000000001389",' +
        '"hash":"0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"}',
    );
  });

  test('address prefers the entity EVM address; to is always long-zero; empty values', () => {
    const view = resultView({
      ...row,
      evm_address: '70f2b2914a2a4b783faefb75f459a580616fcb5e',
      bloom: '',
      call_result: null,
      created_contract_ids: null,
      error_message: 'CONTRACT_REVERT_EXECUTED',
      transaction_hash: null,
      amount: null,
    });
    assert.equal(view.address, '0x70f2b2914a2a4b783faefb75f459a580616fcb5e');
    assert.equal(view.to, '0x0000000000000000000000000000000000001389');
    assert.equal(view.bloom, '0x');
    assert.equal(view.call_result, '0x');
    assert.deepEqual(view.created_contract_ids, []);
    assert.equal(view.error_message, 'CONTRACT_REVERT_EXECUTED');
    assert.equal(view.hash, '0x');
    assert.equal(view.amount, null);
    assert.equal(resultView({ ...row, evm_address: '' }).address, '0x0000000000000000000000000000000000001389');
    const zero = resultView({ ...row, contract_id: '0' });
    assert.equal(zero.address, null);
    assert.equal(zero.to, null);
    assert.equal(zero.contract_id, null);
  });

  test('from: sender, else the protobuf alias when sender_id is NULL', () => {
    assert.equal(fromAddress('2001', null), '0x00000000000000000000000000000000000007d1');
    const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
    assert.equal(fromAddress(null, hexOf(functionResult({ alias: ALIAS }))), `0x${ALIAS}`);
    assert.equal(fromAddress(null, hexOf(functionResult({ accountNum: 5 }))), null);
    assert.equal(fromAddress(null, '0808'), null);
    assert.equal(fromAddress(null, ''), null);
    assert.equal(fromAddress(null, null), null);
    assert.equal(fromAddress('0', hexOf(functionResult({ alias: ALIAS }))), null);
    assert.equal(fromAddress('2001', hexOf(functionResult({ alias: ALIAS }))), '0x00000000000000000000000000000000000007d1');
  });
});
