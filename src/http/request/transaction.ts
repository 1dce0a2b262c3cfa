/**
 * The {transactionIdOrHash} path parameter: a 32-byte hash (the
 * Ethereum hash, or the prefix of the 48-byte Hedera hash), or a transaction id
 * `shard.realm.num-seconds-nanos`.
 */
import type { Config } from '../../config/config.ts';
import { badRequest } from './errors.ts';
import { INVALID_TRANSACTION_ID, invalidEntityId } from './messages.ts';
import { parseHash32, parseTransactionId } from './values.ts';

export type TransactionRef =
  | { kind: 'hash'; hash: Buffer }
  | { kind: 'id'; payer: bigint; validStartNs: bigint };

/**
 * Classifies and parses the segment: 400 with the reference's transaction id message for anything
 * that is neither form, 400 `Invalid entity ID "<shard.realm.num>"` for an id whose account part
 * is out of range.
 */
export function parseTransactionRef(text: string, config: Config): TransactionRef {
  const hash = parseHash32(text);
  if (hash !== undefined) return { kind: 'hash', hash };
  const id = parseTransactionId(text, config);
  if (id === undefined) throw badRequest(INVALID_TRANSACTION_ID);
  if (id.payer === undefined) throw badRequest(invalidEntityId(id.entity));
  return { kind: 'id', payer: id.payer, validStartNs: id.validStartNs };
}
