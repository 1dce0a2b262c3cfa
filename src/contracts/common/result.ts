import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { type HexBytes, hex, hexToBytes } from '../../format/hex.ts';
import { int8, jsonInteger, plainString } from '../../format/json.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import { senderAlias } from './protobuf.ts';

/** One item of `results` (reference 5.4); key order is part of the contract. */
/** A contract_result row with the contract's entity.evm_address (NULL when there is no entity). */
export interface ResultRow {
  amount: string | null;
  bloom: HexBytes | null;
  call_result: HexBytes | null;
  consensus_timestamp: string;
  contract_id: string;
  created_contract_ids: Array<string | null> | null;
  error_message: string | null;
  function_parameters: HexBytes | null;
  /** Only selected when sender_id is NULL (the `from` fallback needs it); NULL otherwise. */
  function_result: HexBytes | null;
  gas_consumed: string | null;
  gas_limit: string;
  gas_used: string | null;
  sender_id: string | null;
  transaction_hash: HexBytes | null;
  evm_address: HexBytes | null;
}

export interface ResultView {
  address: string | null;
  amount: number | bigint | null;
  bloom: string;
  call_result: string;
  contract_id: string | null;
  created_contract_ids: Array<string | null>;
  error_message: string | null;
  from: string | null;
  function_parameters: string;
  gas_consumed: number | bigint | null;
  gas_limit: number | bigint | null;
  gas_used: number | bigint | null;
  timestamp: string | null;
  to: string | null;
  hash: string;
}

/**
 * `from`: the long-zero address of a non-zero sender_id; without a sender, the alias of the sender
 * recorded in the protobuf function_result (if it decodes and carries one); else null.
 */
export function fromAddress(senderId: string | null, functionResult: HexBytes | null): string | null {
  if (senderId !== null && BigInt(senderId) !== 0n) return longZeroAddress(senderId);
  if (senderId === null && functionResult) {
    const alias = senderAlias(hexToBytes(functionResult));
    if (alias !== undefined) return `0x${Buffer.from(alias).toString('hex')}`;
  }
  return null;
}

export function resultView(row: ResultRow): ResultView {
  return {
    address: row.evm_address ? hex(row.evm_address) : longZeroAddress(row.contract_id),
    amount: int8(row.amount),
    bloom: hex(row.bloom),
    call_result: hex(row.call_result),
    contract_id: entityIdToString(row.contract_id),
    created_contract_ids: (row.created_contract_ids ?? []).map((id) => entityIdToString(id)),
    error_message: row.error_message === null || row.error_message === '' ? null : row.error_message,
    from: fromAddress(row.sender_id, row.function_result),
    function_parameters: hex(row.function_parameters),
    gas_consumed: int8(row.gas_consumed),
    gas_limit: int8(row.gas_limit),
    gas_used: int8(row.gas_used),
    timestamp: formatTimestamp(row.consensus_timestamp),
    to: longZeroAddress(row.contract_id),
    hash: hex(row.transaction_hash),
  };
}

/**
 * A result item's JSON text, as toJson writes it (Encoded, format/json.ts): the error message is
 * free text and escaped as JSON.stringify would; every other string is hex, an id or a timestamp.
 */
export function resultJson(result: ResultView): string {
  let created = '';
  for (const id of result.created_contract_ids) created += (created === '' ? '' : ',') + plainString(id);
  return (
    `{"address":${plainString(result.address)},"amount":${jsonInteger(result.amount)},"bloom":"${result.bloom}",` +
    `"call_result":"${result.call_result}","contract_id":${plainString(result.contract_id)},"created_contract_ids":[${created}],` +
    `"error_message":${result.error_message === null ? 'null' : JSON.stringify(result.error_message)},"from":${plainString(result.from)},` +
    `"function_parameters":"${result.function_parameters}","gas_consumed":${jsonInteger(result.gas_consumed)},` +
    `"gas_limit":${jsonInteger(result.gas_limit)},"gas_used":${jsonInteger(result.gas_used)},"timestamp":${plainString(result.timestamp)},` +
    `"to":${plainString(result.to)},"hash":"${result.hash}"}`
  );
}
