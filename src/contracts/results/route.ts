import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import { parseContractParam } from '../../http/contractParam.ts';
import { effectiveLimit, effectiveOrder } from '../../http/filters.ts';
import { nextLink } from '../../http/links.ts';
import type { Page, Route } from '../../http/server.ts';
import { resolveListingContract } from '../shared/listingContract.ts';
import {
  type Range,
  type ValidatedQuery,
  blockFilter,
  emptyRange,
  internalValue,
  narrow,
  timestampRange,
  transactionIndexes,
  validateQuery,
} from './params.ts';
import { findBlock, findResults, findSenderId } from './query.ts';
import { resultView } from './view.ts';

const EMPTY: Page = { body: { results: [], links: { next: null } }, next: null };

/** The sender_id conditions of the `from` filters, opaque addresses looked up in query order. */
async function senderRange(db: Db, senders: ValidatedQuery['senders'], config: Config): Promise<Range> {
  const range = emptyRange();
  for (const { operator, sender } of senders) {
    const id = sender.kind === 'id' ? sender.id : await findSenderId(db, sender.hex, config);
    narrow(range, operator, id);
  }
  return range;
}

/**
 * GET /api/v1/contracts/{contractIdOrAddress}/results: the contract's results, newest first by
 * default. Checks run in the reference's order: path syntax, query validation, contract
 * resolution, `from` addresses, block, then the query.
 */
export const contractResultsRoute: Route = {
  path: '/api/v1/contracts/:contractId/results',
  headers: { 'cache-control': 'public, max-age=1' },
  async handler({ config, db, query, path, params, linkBase }) {
    const param = parseContractParam(params.contractId!);
    const { filters, senders } = validateQuery(query, config);
    const contractId = await resolveListingContract(db, param, config);
    const sender = await senderRange(db, senders, config);

    const timestamp = timestampRange(filters);
    const block = blockFilter(filters);
    if (block !== undefined) {
      const range = await findBlock(db, block);
      if (range === undefined) return EMPTY;
      narrow(timestamp, 'gte', BigInt(range.consensus_start));
      narrow(timestamp, 'lte', BigInt(range.consensus_end));
    }
    const indexes = transactionIndexes(filters);
    const limit = effectiveLimit(filters, config.response.limit.default, config.response.limit.max);
    const order = effectiveOrder(filters, 'desc');
    if (timestamp.empty || sender.empty) return EMPTY;

    const rows = await findResults(db, {
      contractId,
      timestamp,
      sender,
      transactionIndexes: indexes,
      internal: internalValue(filters),
      order,
      limit,
    });
    const results = rows.map(resultView);
    let next: string | null = null;
    if (results.length > 0 && results.length === limit) {
      const last = results[results.length - 1]!;
      next = nextLink(linkBase, path, query, order, [['timestamp', { value: last.timestamp!, inclusive: false }]]);
    }
    return { body: { results, links: { next } }, next };
  },
};
