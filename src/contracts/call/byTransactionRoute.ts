/**
 * GET /api/v1/contracts/results/{transactionIdOrHash}: one call in full, by the 32-byte Ethereum
 * hash (or the Hedera hash prefix) or by transaction id with `nonce`.
 */
import { notFound } from '../../http/request/errors.ts';
import type { Route } from '../../http/route.ts';
import { callPage } from './callPage.ts';
import { latestConsensusNs } from '../common/transactionPath.ts';
import { parseCallByTransactionParams } from './params.ts';
import { findByHash, findByTransactionId } from './query.ts';
import { callByTransactionSchema } from './schema.ts';

/** ContractCall, ContractCreateInstance and EthereumTransaction. */
const CONTRACT_TYPES = new Set([7, 8, 50]);

export const callByTransactionRoute: Route = {
  path: '/api/v1/contracts/results/:transactionIdOrHash',
  cacheControl: 'public, max-age=600',
  schema: callByTransactionSchema,
  async handler({ config, db, query, params }) {
    const { transaction, nonce } = parseCallByTransactionParams(params.transactionIdOrHash!, query, config);
    if (transaction.kind === 'hash') {
      const match = await findByHash(db, transaction.hash);
      if (match === undefined) throw notFound();
      // the earliest transaction with this hash: a later one cannot displace it, so settled at once
      return { ...(await callPage(db, BigInt(match.consensus_timestamp), BigInt(match.entity_id), 0n)), settledAfter: 0n };
    }
    // a valid start beyond the int64 range can match no transaction (the reference overflows: 503)
    const latestNs = latestConsensusNs(transaction.validStartNs, config);
    if (latestNs === undefined) throw notFound();
    const matches = await findByTransactionId(db, { payer: transaction.payer, validStartNs: transaction.validStartNs, latestNs, nonce });
    // Several transactions share the id when a schedule's execution does: then it is no contract
    // call of its own (404). Several contract transactions with one id breach an invariant of the
    // data, not of the request: 500, as the reference (and its spec) answer.
    if (matches.length === 0 || (matches.length > 1 && matches.some((m) => !CONTRACT_TYPES.has(m.type)))) throw notFound();
    if (matches.length > 1) throw new Error(`${matches.length} contract transactions share the transaction id ${params.transactionIdOrHash}`);
    // another transaction with this id (making it 404) can still come until its window has passed
    return { ...(await callPage(db, BigInt(matches[0]!.consensus_timestamp), transaction.payer, 0n)), settledAfter: latestNs };
  },
};
