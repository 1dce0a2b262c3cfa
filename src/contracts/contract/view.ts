import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { type HexBytes, hex, hexToBytes } from '../../format/hex.ts';
import { JsonText, int8, toJson } from '../../format/json.ts';
import { type FormattedKey, formatKey } from '../../format/key.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import type { ContractRow, ContractSummaryRow } from './query.ts';

/** The contract object of GET /api/v1/contracts/{id}; key order is part of the contract. */
export interface ContractView {
  admin_key: FormattedKey | null;
  auto_renew_account: string | null;
  auto_renew_period: number | bigint | null;
  contract_id: string | null;
  created_timestamp: string | null;
  deleted: boolean | null;
  evm_address: string | null;
  expiration_timestamp: string | null;
  file_id: string | null;
  max_automatic_token_associations: number | null;
  memo: string;
  nonce: number | bigint | null;
  obtainer_id: string | null;
  permanent_removal: boolean | null;
  proxy_account_id: string | null;
  timestamp: { from: string | null; to: string | null };
  bytecode: string;
  runtime_bytecode: string;
}

/** The contract object without its bytecodes (the items of GET /api/v1/contracts). */
export type ContractSummary = Omit<ContractView, 'bytecode' | 'runtime_bytecode'>;

/** expiration_timestamp, or created + auto_renew_period seconds when it is not stored. */
function expiration(row: ContractSummaryRow): string | null {
  if (row.expiration_timestamp === null && row.created_timestamp !== null && row.auto_renew_period !== null) {
    return formatTimestamp(BigInt(row.created_timestamp) + BigInt(row.auto_renew_period) * 1_000_000_000n);
  }
  return formatTimestamp(row.expiration_timestamp);
}

/** Bytecode read from a file is hex text: returned as is, "0x" added when missing. */
export function fileBytecodeText(data: HexBytes | null): string {
  if (!data) return '0x';
  const text = hexToBytes(data).toString('utf8');
  return text.startsWith('0x') ? text : `0x${text}`;
}

/**
 * The contract's JSON. The bytecodes, often tens of kilobytes each, are its last two keys and, when
 * they are hex digits, need no escaping: they are appended to the JSON of the other keys instead of
 * being scanned by JSON.stringify. Bytecode read from a file is text and is escaped as usual.
 */
export function contractJson(view: ContractView, bytecodeIsHex: boolean): JsonText {
  const { bytecode, runtime_bytecode, ...head } = view;
  const json = toJson(head);
  const bytecodeJson = bytecodeIsHex ? `"${bytecode}"` : JSON.stringify(bytecode);
  return new JsonText(`${json.slice(0, -1)},"bytecode":${bytecodeJson},"runtime_bytecode":"${runtime_bytecode}"}`);
}

export function contractView(row: ContractRow, bytecode: string): ContractView {
  return { ...contractSummary(row), bytecode, runtime_bytecode: hex(row.runtime_bytecode) };
}

export function contractSummary(row: ContractSummaryRow): ContractSummary {
  return {
    admin_key: formatKey(row.key),
    auto_renew_account: entityIdToString(row.auto_renew_account_id),
    auto_renew_period: int8(row.auto_renew_period),
    contract_id: entityIdToString(row.id),
    created_timestamp: formatTimestamp(row.created_timestamp),
    deleted: row.deleted,
    evm_address: row.evm_address !== null ? hex(row.evm_address) : longZeroAddress(row.id),
    expiration_timestamp: expiration(row),
    file_id: entityIdToString(row.file_id),
    max_automatic_token_associations: row.max_automatic_token_associations,
    memo: row.memo,
    nonce: int8(row.ethereum_nonce),
    obtainer_id: entityIdToString(row.obtainer_id),
    permanent_removal: row.permanent_removal,
    proxy_account_id: entityIdToString(row.proxy_account_id),
    timestamp: { from: formatTimestamp(row.timestamp_from), to: formatTimestamp(row.timestamp_to) },
  };
}
