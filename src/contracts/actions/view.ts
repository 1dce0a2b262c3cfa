/** Items of GET /api/v1/contracts/results/{id}/actions; key order is part of the contract. */
import { entityIdToString, longZeroAddress } from '../../format/entityId.ts';
import { hexPadded } from '../../format/hex.ts';
import { int8 } from '../../format/json.ts';
import { formatTimestamp } from '../../format/timestamp.ts';
import { badRequest } from '../../http/request/errors.ts';
import type { ActionRow } from './query.ts';

const CALL_OPERATION_TYPES = ['UNKNOWN', 'CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2'];
const CALL_TYPES = ['NO_ACTION', 'CALL', 'CREATE', 'PRECOMPILE', 'SYSTEM'];
const RESULT_DATA_TYPES: Record<number, string> = { 11: 'OUTPUT', 12: 'REVERT_REASON', 13: 'ERROR' };

export function actionView(row: ActionRow): Record<string, unknown> {
  // The reference fails the request on an action without a caller (400 "Null entity ID").
  if (row.caller === null) throw badRequest('Null entity ID');
  const fromAccount = row.recipient_account !== null && row.recipient_account !== '0';
  const recipientId = fromAccount ? row.recipient_account : row.recipient_contract;
  const view: Record<string, unknown> = { call_depth: row.call_depth };
  const operation = CALL_OPERATION_TYPES[row.call_operation_type ?? 0];
  if (operation !== undefined) view.call_operation_type = operation;
  const callType = row.call_type === null ? undefined : CALL_TYPES[row.call_type];
  if (callType !== undefined) view.call_type = callType;
  view.caller = entityIdToString(row.caller);
  view.caller_type = row.caller_type;
  view.from = longZeroAddress(row.caller);
  view.gas = int8(row.gas);
  view.gas_used = int8(row.gas_used);
  view.index = row.index;
  view.input = hexPadded(row.input, 2);
  view.recipient = recipientId === null ? null : entityIdToString(recipientId);
  view.recipient_type = recipientId === null ? null : fromAccount ? 'ACCOUNT' : 'CONTRACT';
  view.result_data = hexPadded(row.result_data, 2);
  const resultType = RESULT_DATA_TYPES[row.result_data_type];
  if (resultType !== undefined) view.result_data_type = resultType;
  view.timestamp = formatTimestamp(row.consensus_timestamp);
  view.to = row.recipient_address !== null ? hexPadded(row.recipient_address, 40) : recipientId === null ? null : longZeroAddress(recipientId);
  view.value = int8(row.value);
  return view;
}
