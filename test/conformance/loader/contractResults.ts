// Setup keys of the contract family: results (with their contract_transaction_hash rows), logs,
// state changes, the derived contract_transaction rows, current state, actions and Ethereum
// transactions, with their defaults.
import { type LoadContext, convertBytea, insertRow } from './database.ts';
import { type Row, rowsOf } from './values.ts';

const CONTRACT_RESULT_COLUMNS = [
  'amount', 'bloom', 'call_result', 'consensus_timestamp', 'contract_id', 'created_contract_ids', 'error_message',
  'failed_initcode', 'function_parameters', 'function_result', 'gas_consumed', 'gas_limit', 'gas_used',
  'payer_account_id', 'sender_id', 'transaction_hash', 'transaction_index', 'transaction_nonce', 'transaction_result',
] as const;

export const CONTRACT_RESULT_DEFAULTS: Row = {
  amount: 0,
  bloom: null,
  call_result: null,
  consensus_timestamp: 1234510001,
  contract_id: 0,
  created_contract_ids: [],
  error_message: '',
  failed_initcode: null,
  function_parameters: '0x010102020303',
  function_result: null,
  gas_consumed: null,
  gas_limit: 1000,
  gas_used: null,
  payer_account_id: 102,
  sender_id: 101,
  transaction_hash: '0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  transaction_index: 1,
  transaction_nonce: 0,
  transaction_result: 22,
};

const CONTRACT_TRANSACTION_HASH_COLUMNS = [
  'consensus_timestamp', 'entity_id', 'hash', 'payer_account_id', 'transaction_result',
] as const;

export async function addContractResult(ctx: LoadContext, input: Row): Promise<void> {
  const result: Row = { ...CONTRACT_RESULT_DEFAULTS, ...input };
  convertBytea(result, [
    'bloom', 'call_result', 'failed_initcode', 'function_parameters', 'function_result', 'transaction_hash',
  ]);
  await insertRow(ctx, 'contract_result', CONTRACT_RESULT_COLUMNS, result);
  await insertRow(ctx, 'contract_transaction_hash', CONTRACT_TRANSACTION_HASH_COLUMNS, {
    consensus_timestamp: result.consensus_timestamp,
    entity_id: result.contract_id,
    hash: result.transaction_hash,
    payer_account_id: result.payer_account_id,
    transaction_result: result.transaction_result,
  });
}

const CONTRACT_LOG_DEFAULTS: Row = {
  bloom: '0x0123',
  consensus_timestamp: 1234510001,
  contract_id: 1,
  data: '0x0123',
  index: 0,
  payer_account_id: 102,
  root_contract_id: null,
  topic0: '0x97c1fc0a6ed5551bc831571325e9bdb365d06803100dc20648640ba24ce69750',
  topic1: '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
  topic2: '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
  topic3: '0xe8d47b56e8cdfa95f871b19d4f50a857217c44a95502b0811a350fec1500dd67',
  transaction_hash: '0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  transaction_index: 0,
};

export async function addContractLog(ctx: LoadContext, input: Row): Promise<void> {
  const log: Row = { ...CONTRACT_LOG_DEFAULTS, ...input };
  convertBytea(log, ['bloom', 'data', 'topic0', 'topic1', 'topic2', 'topic3', 'transaction_hash']);
  await insertRow(ctx, 'contract_log', Object.keys(log), log);
}

const CONTRACT_STATE_CHANGE_DEFAULTS: Row = {
  consensus_timestamp: 1234510001,
  contract_id: 1,
  migration: false,
  payer_account_id: 2,
  slot: '0x1',
  value_read: '0x0101',
  value_written: '0xa1a1',
};

export async function addContractStateChange(ctx: LoadContext, input: Row): Promise<void> {
  const change: Row = { ...CONTRACT_STATE_CHANGE_DEFAULTS, ...input };
  convertBytea(change, ['slot', 'value_read', 'value_written']);
  await insertRow(ctx, 'contract_state_change', Object.keys(change), change);
}

const CONTRACT_TRANSACTION_COLUMNS = ['consensus_timestamp', 'entity_id', 'payer_account_id', 'contract_ids'] as const;

/** One group of global.contract_transaction_derivation: all rows sharing a consensus timestamp. */
interface ContractTransactionGroup {
  payer: unknown;
  ids: unknown[];
}

/**
 * global.contract_transaction_derivation: results, then logs, then state changes (each merged with
 * its defaults) grouped by the text of consensus_timestamp; each group lists its contract ids and
 * payers (strict-equality dedup) and gets one contract_transaction row per listed id.
 */
export function deriveContractTransactions(setup: Record<string, unknown>): Row[] {
  const merged = [
    ...rowsOf(setup, 'contractresults').map((row) => ({ ...CONTRACT_RESULT_DEFAULTS, ...row })),
    ...rowsOf(setup, 'contractlogs').map((row) => ({ ...CONTRACT_LOG_DEFAULTS, ...row })),
    ...rowsOf(setup, 'contractStateChanges').map((row) => ({ ...CONTRACT_STATE_CHANGE_DEFAULTS, ...row })),
  ];
  const groups = new Map<string, ContractTransactionGroup>();
  for (const row of merged) {
    const key = String(row.consensus_timestamp);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { payer: row.payer_account_id, ids: [] }));
    if (!group.ids.includes(row.contract_id)) group.ids.push(row.contract_id);
    if (!group.ids.includes(row.payer_account_id)) group.ids.push(row.payer_account_id);
  }
  const rows: Row[] = [];
  for (const [consensusTimestamp, group] of groups) {
    const contractIds = `{${group.ids.join(',')}}`;
    for (const id of group.ids) {
      rows.push({
        consensus_timestamp: consensusTimestamp,
        entity_id: id,
        payer_account_id: group.payer,
        contract_ids: contractIds,
      });
    }
  }
  return rows;
}

const CONTRACT_STATE_COLUMNS = ['contract_id', 'created_timestamp', 'modified_timestamp', 'slot', 'value'] as const;

const CONTRACT_STATE_DEFAULTS: Row = {
  contract_id: null,
  created_timestamp: '1664365660048675000',
  modified_timestamp: '1664365660048675000',
  slot: '0000000000000000000000000000000000000000000000000000000000000001',
  value: 1,
};

export async function addContractState(ctx: LoadContext, input: Row): Promise<void> {
  const state: Row = { ...CONTRACT_STATE_DEFAULTS, ...input };
  convertBytea(state, ['slot', 'value']);
  await insertRow(ctx, 'contract_state', CONTRACT_STATE_COLUMNS, state);
}

const CONTRACT_ACTION_COLUMNS = [
  'call_depth', 'call_operation_type', 'call_type', 'caller', 'caller_type', 'consensus_timestamp', 'gas', 'gas_used',
  'index', 'input', 'payer_account_id', 'recipient_account', 'recipient_address', 'recipient_contract', 'result_data',
  'result_data_type', 'value',
] as const;

const CONTRACT_ACTION_DEFAULTS: Row = {
  call_depth: 1,
  call_operation_type: 1,
  call_type: 1,
  caller: 8001,
  caller_type: 'CONTRACT',
  consensus_timestamp: 1234510001,
  gas: 10000,
  gas_used: 5000,
  index: 1,
  input: null,
  payer_account_id: 102,
  recipient_account: null,
  recipient_address: null,
  recipient_contract: null,
  result_data: null,
  result_data_type: 11,
  value: 100,
};

export async function addContractAction(ctx: LoadContext, input: Row): Promise<void> {
  const action: Row = { ...CONTRACT_ACTION_DEFAULTS, ...input };
  convertBytea(action, ['input', 'recipient_address', 'result_data']);
  await insertRow(ctx, 'contract_action', CONTRACT_ACTION_COLUMNS, action);
}

const ETHEREUM_TRANSACTION_DEFAULTS: Row = {
  access_list: null,
  call_data_id: null,
  call_data: null,
  chain_id: null,
  consensus_timestamp: '187654000123456',
  data: '0x000000000',
  gas_limit: 1000000,
  gas_price: '0x4a817c80',
  hash: '0x0000000000000000000000000000000000000000000000000000000000000123',
  max_fee_per_gas: null,
  max_gas_allowance: 10000,
  max_priority_fee_per_gas: null,
  nonce: 1,
  payer_account_id: 5001,
  recovery_id: 1,
  signature_r: '0xd693b532a80fed6392b428604171fb32fdbf953728a3a7ecc7d4062b1652c042',
  signature_s: '0x24e9c602ac800b983b035700a14b23f78a253ab762deab5dc27e3555a750b354',
  signature_v: '0x1b',
  to_address: '0x0000000000000000000000000000000000001389',
  type: 2,
  value: '0x0',
};

const ETHEREUM_TRANSACTION_BYTEA = [
  'access_list', 'call_data', 'chain_id', 'data', 'gas_price', 'hash', 'max_fee_per_gas', 'max_priority_fee_per_gas',
  'signature_r', 'signature_s', 'signature_v', 'to_address', 'value',
] as const;

export async function addEthereumTransaction(ctx: LoadContext, input: Row): Promise<void> {
  const columns = Object.fromEntries(Object.entries(input).filter(([key]) => !key.startsWith('_')));
  const transaction: Row = { ...ETHEREUM_TRANSACTION_DEFAULTS, ...columns };
  convertBytea(transaction, ETHEREUM_TRANSACTION_BYTEA);
  await insertRow(ctx, 'ethereum_transaction', Object.keys(transaction), transaction);
}

export async function addContractTransaction(ctx: LoadContext, row: Row): Promise<void> {
  await insertRow(ctx, 'contract_transaction', CONTRACT_TRANSACTION_COLUMNS, row);
}
