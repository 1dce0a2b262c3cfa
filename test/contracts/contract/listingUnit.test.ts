/** GET /api/v1/contracts: the parameter rules and the item, without a database. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientError } from '../../../src/http/request/errors.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { CONTRACT_ID_RULE, contractRef, parseContractsParams } from '../../../src/contracts/contract/params.ts';
import { contractSummary } from '../../../src/contracts/contract/view.ts';
import { testConfig } from '../../support/app.ts';
import type { ContractSummaryRow } from '../../../src/contracts/contract/query.ts';

const config = testConfig();
const messages = (fn: () => unknown): string[] | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ClientError) return err.messages;
    throw err;
  }
  return undefined;
};
const EVM = '70f2b2914a2a4b783faefb75f459a580616fcb5e';

test('contract.id: ids with any operator, EVM addresses (no 0x) with eq only', () => {
  for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'] as const) {
    for (const value of ['1001', '0.1001', '0.0.1001', '-5', '9999999999999999999']) assert.equal(CONTRACT_ID_RULE(op, value), true, `${op}:${value}`);
  }
  for (const value of [EVM, `0.${EVM}`, `0.0.${EVM}`, EVM.toUpperCase(), '0'.repeat(40)]) {
    assert.equal(CONTRACT_ID_RULE('eq', value), true, value);
    assert.equal(CONTRACT_ID_RULE('gt', value), false, value);
  }
  for (const value of [`0x${EVM}`, 'a', '0.0.0.1', '1.2.3.4', '', `${EVM}00`, '12345.0.1', '0.123456.1', '0.0.1234567890123']) {
    assert.equal(CONTRACT_ID_RULE('eq', value), false, value);
  }
});

test('validation groups invalid values before unknown keys; limit and order as elsewhere', () => {
  assert.deepEqual(messages(() => parseContractsParams(parseQuery('contract.id=a&order=b&limit=c&timestamp=1234567890'), config)), [
    'Invalid parameter: contract.id',
    'Invalid parameter: order',
    'Invalid parameter: limit',
    'Unknown query parameter: timestamp',
  ]);
  const params = parseContractsParams(parseQuery('contract.id=ne:5&limit=500&order=ASC&contract.id=1.2'), config);
  assert.deepEqual(params, {
    contractIds: [
      { operator: 'ne', value: '5' },
      { operator: 'eq', value: '1.2' },
    ],
    paging: { limit: 100, order: 'asc' },
  });
  assert.deepEqual(parseContractsParams(parseQuery(''), config).paging, { limit: 25, order: 'desc' });
});

test('contractRef: encoded integers, dotted ids, long-zero and opaque addresses; failures name contractid', () => {
  assert.deepEqual(contractRef('274877906945', config), { kind: 'id', id: 274877906945n });
  assert.deepEqual(contractRef('0.1001', config), { kind: 'id', id: 1001n });
  assert.deepEqual(contractRef(`0.0.${'0'.repeat(36)}03e9`, config), { kind: 'id', id: 1001n });
  assert.deepEqual(contractRef(`1.2.${EVM}`, config), { kind: 'evm', shard: '1', realm: '2', hex: EVM });
  for (const value of ['0.0.999999999999', '0.65536.1', `1.0.${'0'.repeat(36)}03e9`, '9999999999999999999']) {
    assert.deepEqual(messages(() => contractRef(value, config)), ['Invalid parameter: contractid'], value);
  }
});

test('the item is the contract object without bytecodes, 16 keys in order', () => {
  const row: ContractSummaryRow = {
    auto_renew_account_id: null,
    auto_renew_period: '1500',
    created_timestamp: '987654111123456',
    deleted: false,
    evm_address: null,
    expiration_timestamp: null,
    id: '8002',
    key: null,
    max_automatic_token_associations: 0,
    memo: 'm',
    ethereum_nonce: '2',
    obtainer_id: null,
    permanent_removal: null,
    proxy_account_id: null,
    timestamp_from: '987654111123456',
    timestamp_to: null,
    file_id: null,
  };
  const item = contractSummary(row);
  assert.deepEqual(Object.keys(item), [
    'admin_key', 'auto_renew_account', 'auto_renew_period', 'contract_id', 'created_timestamp', 'deleted', 'evm_address',
    'expiration_timestamp', 'file_id', 'max_automatic_token_associations', 'memo', 'nonce', 'obtainer_id',
    'permanent_removal', 'proxy_account_id', 'timestamp',
  ]);
  assert.deepEqual([item.contract_id, item.evm_address, item.expiration_timestamp, item.file_id], [
    '0.0.8002',
    '0x0000000000000000000000000000000000001f42',
    '989154.111123456',
    null,
  ]);
});
