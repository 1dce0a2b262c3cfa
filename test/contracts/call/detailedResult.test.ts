/** The detailed contract-result object: key order and every Ethereum rule. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DetailedResultRow, type EthereumRow, detailedResult, quantity, uint256 } from '../../../src/contracts/common/detailedResult.ts';
import { resultName } from '../../../src/contracts/common/resultCodes.ts';
import { toJson } from '../../../src/format/json.ts';

const row: DetailedResultRow = {
  amount: '30',
  bloom: '0505',
  call_result: null,
  consensus_timestamp: '1676540001234390005',
  contract_id: '5001',
  created_contract_ids: ['7001', '0'],
  error_message: '',
  failed_initcode: null,
  function_parameters: '',
  function_result: null,
  gas_consumed: null,
  gas_limit: '1000',
  gas_used: '123',
  payer_account_id: '5000',
  sender_id: '8001',
  transaction_hash: '0a',
  transaction_index: 2,
  transaction_result: 33, // CONTRACT_REVERT_EXECUTED
  evm_address: null,
};

const eth: EthereumRow = {
  access_list: null,
  call_data: 'abcd',
  call_data_id: null,
  chain_id: '012a',
  consensus_timestamp: row.consensus_timestamp,
  gas_limit: '987654',
  gas_price: '04a817c800',
  max_fee_per_gas: null,
  max_priority_fee_per_gas: '00',
  nonce: '7',
  signature_r: 'ab',
  signature_s: 'cd',
  signature_v: '0274',
  type: 0,
  recovery_id: 1,
  to_address: '',
  value: '3365e35901916000', // 3703616240000000000, beyond 2^53
};

const KEYS = [
  'address', 'amount', 'bloom', 'call_result', 'contract_id', 'created_contract_ids', 'error_message', 'from',
  'function_parameters', 'gas_consumed', 'gas_limit', 'gas_used', 'timestamp', 'to', 'hash', 'block_hash', 'block_number',
  'logs', 'result', 'transaction_index', 'state_changes', 'status', 'failed_initcode', 'access_list', 'block_gas_used',
  'chain_id', 'gas_price', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'r', 's', 'type', 'v', 'nonce',
];

test('key order: 34 keys on the single routes, 32 (no logs, no state_changes) on the list', () => {
  const single = detailedResult(row, eth, { hash: 'ff'.repeat(48), number: '17', consensus_start: '1', consensus_end: '2', gas_used: '-1' }, { logs: [], stateChanges: [], fileData: null });
  assert.deepEqual(Object.keys(single), KEYS);
  const list = detailedResult(row, undefined, undefined);
  assert.deepEqual(Object.keys(list), KEYS.filter((k) => k !== 'logs' && k !== 'state_changes'));
});

test('the Ethereum fields: exact amount, quantities, legacy v, call data and the failed result name', () => {
  const v = detailedResult(row, eth, undefined, { logs: [], stateChanges: [], fileData: null });
  assert.match(toJson(v), /"amount":3703616240000000000,/);
  assert.equal(v.chain_id, '0x12a');
  assert.equal(v.gas_price, '0x4a817c800');
  assert.equal(v.max_fee_per_gas, '0x');
  assert.equal(v.max_priority_fee_per_gas, '0x0');
  assert.equal(v.v, 628);
  assert.equal(v.gas_limit, 987654);
  assert.equal(v.function_parameters, '0xabcd');
  assert.equal(v.failed_initcode, '0xabcd', 'a failed Ethereum call shows its call data');
  assert.equal(v.error_message, 'CONTRACT_REVERT_EXECUTED');
  assert.equal(v.to, '0x0000000000000000000000000000000000001389', 'an empty to_address keeps the long-zero address');
  assert.equal(v.status, '0x0');
  assert.equal(v.block_hash, '0x');
  assert.equal(v.block_gas_used, null);
  // the list variant reads neither call data nor the Ethereum gas limit, and an empty value is 0
  const listed = detailedResult(row, { ...eth, value: '', call_data: undefined, gas_limit: undefined }, undefined);
  assert.deepEqual([listed.amount, listed.gas_limit, listed.function_parameters, listed.failed_initcode], [0, 1000, '0x', null]);
  // type 2: v is the recovery id
  assert.equal(detailedResult(row, { ...eth, type: 2 }, undefined).v, 1);
});

test('call data kept in a file fills empty function parameters on the single routes only', () => {
  const fromFile = { ...eth, call_data: '', call_data_id: '1001' };
  assert.equal(detailedResult(row, fromFile, undefined, { logs: [], stateChanges: [], fileData: '0c0b0a090807ff80' }).function_parameters, '0x0c0b0a090807ff80');
  assert.equal(detailedResult(row, fromFile, undefined).function_parameters, '0x');
});

test('formats: quantity, uint256, result names', () => {
  assert.deepEqual(['0127', '00', '0005', '', null].map(quantity), ['0x127', '0x0', '0x005', '0x', '0x']);
  assert.deepEqual(['', null, '03'].map(uint256), [`0x${'0'.repeat(64)}`, null, `0x${'3'.padStart(64, '0')}`]);
  assert.deepEqual([22, 33, 9999, null].map(resultName), ['SUCCESS', 'CONTRACT_REVERT_EXECUTED', 'UNKNOWN', 'UNKNOWN']);
});
