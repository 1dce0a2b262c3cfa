/**
 * GET /api/v1/contracts/{contractIdOrAddress}/results: the contract's results, newest first by
 * default. Checks run in the reference's order: path syntax, query validation, contract
 * resolution, `from` addresses, block, then the query.
 */
import { INT64, narrow } from '../../db/range.ts';
import { listingPage, nextPageLink } from '../../http/request/listing.ts';
import { contractListingRef, parseContractPath } from '../../http/request/contract.ts';
import type { Route } from '../../http/route.ts';
import { resolveContract } from '../common/resolve.ts';
import { withBlockRange } from '../common/blockRange.ts';
import { parseResultsParams, refuseResultsTimestamps, transactionIndexes } from './params.ts';
import { findResults } from './query.ts';
import { findBlock, senderRange } from './lookups.ts';
import { topLevelMemo } from './topLevel.ts';
import { citusSafe, dbLayout } from '../../db/layout.ts';
import { resultJson, resultView } from '../common/result.ts';
import { contractResultsSchema } from './schema.ts';
import { splitAt } from '../common/newestFirst.ts';

const EMPTY = listingPage('results', [], null);

export const contractResultsRoute: Route = {
  path: '/api/v1/contracts/:contractId/results',
  listing: 'results',
  cacheControl: 'public, max-age=1',
  schema: contractResultsSchema,
  async handler(incoming) {
    // block.number ranges (an addition): the request for their consensus range instead
    const { request, empty } = await withBlockRange(incoming, true);
    const { config, db, params } = request;
    const path = parseContractPath(params.contractId!);
    const query = parseResultsParams(request.query, config);
    const contractId = await resolveContract(db, contractListingRef(path, config));
    const sender = await senderRange(db, query.senders, config);
    if (empty) return EMPTY;

    let timestamp = query.timestamp;
    if (query.block !== undefined) {
      const block = await findBlock(db, query.block);
      if (block === undefined) return EMPTY;
      timestamp = narrow(timestamp, 'gte', BigInt(block.consensus_start), INT64);
      timestamp = narrow(timestamp, 'lte', BigInt(block.consensus_end), INT64);
    }
    const indexes = transactionIndexes(query.transactionIndexes);
    refuseResultsTimestamps(query);
    if (timestamp.empty || sender.empty) return EMPTY;

    const { limit, order } = query.paging;
    // not on v2/Citus: the walk reads the newest block and contract_result in one statement (topLevel.ts)
    const memo = query.internal || citusSafe(dbLayout(db)) ? undefined : topLevelMemo(db, config);
    const topLevel = memo?.get(contractId);
    const split = await splitAt(db, config.db.newestFirstSpanNs);
    const rows = await findResults(db, { contractId, timestamp, sender, transactionIndexes: indexes, internal: query.internal, order, limit, topLevel, split });
    // a short page read the contract's whole range: next time, read only its top-level rows (topLevel.ts)
    if (memo && topLevel === undefined && rows.length < limit) void memo.learn(contractId);
    const results = rows.map(resultView);
    const next = nextPageLink(request, query.paging, results.length, () => [
      ['timestamp', { value: results[results.length - 1]!.timestamp!, inclusive: false }],
    ]);
    return listingPage('results', results, next, resultJson);
  },
};
