/**
 * The detailed contract-result object of
 * GET /contracts/results (the list variant, 32 keys) and of the single-result routes
 * /contracts/{id}/results/{timestamp} and /contracts/results/{transactionIdOrHash} (34 keys, with
 * logs and state changes). Rows in, JSON-ready object out, keys in the reference's order.
 */
import type { ItemBlock } from '../../db/blocks.ts';
import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { type HexBytes, hex, hexPadded } from '../../format/hex.ts';
import { int8 } from '../../format/json.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import { blockHashOf, blockNumberOf } from './blockFields.ts';
import { logCore } from './log.ts';
import type { ResultRow } from './result.ts';
import { fromAddress } from './result.ts';
import { isSuccess, resultName } from './resultCodes.ts';

/** A contract_result row with the columns of the detailed object (a superset of the short item's). */
export interface DetailedResultRow extends ResultRow {
  failed_initcode: HexBytes | null;
  payer_account_id: string | null;
  transaction_index: number | null;
  transaction_result: number | null;
}

/** An ethereum_transaction row; call_data, call_data_id and gas_limit only on the single routes. */
export interface EthereumRow {
  access_list: HexBytes | null;
  call_data?: HexBytes | null;
  call_data_id?: string | null;
  chain_id: HexBytes | null;
  consensus_timestamp: string;
  gas_limit?: string | null;
  gas_price: HexBytes | null;
  max_fee_per_gas: HexBytes | null;
  max_priority_fee_per_gas: HexBytes | null;
  nonce: string | null;
  signature_r: HexBytes | null;
  signature_s: HexBytes | null;
  signature_v: HexBytes | null;
  type: number | null;
  recovery_id: number | null;
  to_address: HexBytes | null;
  value: HexBytes | null;
}

/** A log of the call (contract_log with its contract's evm_address). */
export interface CallLogRow {
  bloom: HexBytes | null;
  contract_id: string;
  data: HexBytes | null;
  index: number;
  topic0: HexBytes | null;
  topic1: HexBytes | null;
  topic2: HexBytes | null;
  topic3: HexBytes | null;
  evm_address: HexBytes | null;
}

/** A contract_state_change row with its contract's evm_address. */
export interface StateChangeRow {
  contract_id: string;
  slot: HexBytes | null;
  value_read: HexBytes | null;
  value_written: HexBytes | null;
  evm_address: HexBytes | null;
}

export interface SingleParts {
  logs: readonly CallLogRow[];
  stateChanges: readonly StateChangeRow[];
  /** The latest content of the Ethereum transaction's call data file (call_data_id > 1000), if any. */
  fileData: HexBytes | null;
}

/** Quantity hex: at most one leading zero nibble removed (`0x0127` -> `0x127`, `0x00` -> `0x0`). */
export function quantity(bytes: HexBytes | null): string {
  const text = hex(bytes);
  return text.length > 3 && text.startsWith('0x0') ? `0x${text.slice(3)}` : text;
}

/** uint256 form: NULL -> null, empty -> 32 zero bytes, else left-padded to 64 hex digits. */
export const uint256 = (bytes: HexBytes | null): string | null =>
  bytes === null ? null : `0x${bytes.padStart(64, '0')}`;

/** Unsigned big-endian bytes as an exact JSON number (empty: 0). */
const bigEndian = (bytes: HexBytes | null): number | bigint => {
  const value = bytes ? BigInt(`0x${bytes}`) : 0n;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
};

const addressOf = (evmAddress: HexBytes | null, contractId: string): string | null =>
  evmAddress ? hex(evmAddress) : longZeroAddress(contractId);

const stateChangeView = (change: StateChangeRow) => ({
  address: addressOf(change.evm_address, change.contract_id),
  contract_id: entityIdToString(change.contract_id),
  slot: uint256(change.slot),
  value_read: uint256(change.value_read),
  value_written: uint256(change.value_written),
});

/**
 * The detailed object. `single` holds the logs, state changes and file data of the single-result
 * routes; without it the list variant is rendered (no logs or state changes; gas_limit,
 * function_parameters and failed_initcode from contract_result alone).
 */
export function detailedResult(
  row: DetailedResultRow,
  eth: EthereumRow | undefined,
  block: ItemBlock | undefined,
  single?: SingleParts,
): Record<string, unknown> {
  const result = resultName(row.transaction_result);
  const status = isSuccess(row.transaction_result) ? '0x1' : '0x0';
  const errorMessage = row.error_message === null || row.error_message === '' ? null : row.error_message;
  const callData = single && eth?.call_data ? eth.call_data : null;
  let functionParameters = hex(row.function_parameters);
  if (callData) functionParameters = hexPadded(callData, 2);
  else if (single && eth && !row.function_parameters && single.fileData) functionParameters = hexPadded(single.fileData, 2);
  let failedInitcode: string | null = null;
  if (row.failed_initcode) failedInitcode = hexPadded(row.failed_initcode, 2);
  else if (status === '0x0' && callData) failedInitcode = hexPadded(callData, 2);

  const view: Record<string, unknown> = {
    address: row.evm_address ? hex(row.evm_address) : longZeroAddress(row.contract_id),
    amount: eth ? bigEndian(eth.value) : int8(row.amount),
    bloom: hex(row.bloom),
    call_result: hex(row.call_result),
    contract_id: entityIdToString(row.contract_id),
    created_contract_ids: (row.created_contract_ids ?? []).map((id) => entityIdToString(id)),
    error_message: eth && errorMessage === null && status === '0x0' ? result : errorMessage,
    from: eth && row.sender_id !== null ? longZeroAddress(row.sender_id) : fromAddress(row.sender_id, row.function_result),
    function_parameters: functionParameters,
    gas_consumed: int8(row.gas_consumed),
    gas_limit: single && eth && eth.gas_limit != null ? int8(eth.gas_limit) : int8(row.gas_limit),
    gas_used: int8(row.gas_used),
    timestamp: formatTimestamp(row.consensus_timestamp),
    to: eth?.to_address ? hexPadded(eth.to_address, 2) : longZeroAddress(row.contract_id),
    hash: hexPadded(row.transaction_hash, 2),
    block_hash: blockHashOf(block),
    block_number: blockNumberOf(block),
  };
  if (single) view.logs = single.logs.map(logCore);
  view.result = result;
  view.transaction_index = row.transaction_index;
  if (single) view.state_changes = single.stateChanges.map(stateChangeView);
  view.status = status;
  view.failed_initcode = failedInitcode;
  view.access_list = eth ? hexPadded(eth.access_list, 2) : null;
  view.block_gas_used = block && block.gas_used !== null && block.gas_used !== '-1' ? int8(block.gas_used) : null;
  view.chain_id = eth ? quantity(eth.chain_id) : null;
  view.gas_price = eth ? quantity(eth.gas_price) : null;
  view.max_fee_per_gas = eth ? quantity(eth.max_fee_per_gas) : null;
  view.max_priority_fee_per_gas = eth ? quantity(eth.max_priority_fee_per_gas) : null;
  view.r = eth ? hexPadded(eth.signature_r, 2) : null;
  view.s = eth ? hexPadded(eth.signature_s, 2) : null;
  view.type = eth ? eth.type : null;
  view.v = eth ? (eth.type === 0 && eth.signature_v !== null ? bigEndian(eth.signature_v) : eth.recovery_id) : null;
  view.nonce = eth ? int8(eth.nonce) : null;
  return view;
}
