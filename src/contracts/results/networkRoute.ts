/**
 * GET /api/v1/contracts/results: every contract's results (the detailed object without logs),
 * newest first by default; the relay reads a block's results with a timestamp range.
 */
import { formatTimestamp } from '../../format/timestamp.ts';
import { listingPage, nextPageLink } from '../../http/request/listing.ts';
import { nextLink } from '../../http/request/links.ts';
import type { Page, Route } from '../../http/route.ts';
import { findBlock, senderRange } from './lookups.ts';
import { transactionIndexes } from './params.ts';
import type { DetailedResultRow } from '../common/detailedResult.ts';
import { withBlockRange } from '../common/blockRange.ts';
import { findFirstTransaction, normalizeTimestamps } from '../common/networkTimestamps.ts';
import { checkResultsSegment, checkTimestampRange, parseNetworkResultsParams } from './params.ts';
import { findPageExtras, findResults } from './query.ts';
import { blocksByTimestamp, networkResultView } from './view.ts';
import { networkResultsSchema } from './schema.ts';
import { splitAt } from '../common/newestFirst.ts';

const EMPTY = listingPage('results', [], null);

export const networkResultsRoute: Route = {
  path: '/api/v1/contracts/results',
  listing: 'results',
  cacheControl: 'public, max-age=10',
  schema: networkResultsSchema,
  async handler(incoming) {
    checkResultsSegment(incoming.rawSegments.results!);
    // block.number ranges (an addition): the request for their consensus range instead
    const { request, empty } = await withBlockRange(incoming, true);
    const { config, db, now } = request;
    const query = parseNetworkResultsParams(request.query, config);
    const sender = await senderRange(db, query.senders, config);
    const conditions = [...query.timestamps];
    if (query.block !== undefined) {
      const block = await findBlock(db, query.block);
      if (block === undefined) return EMPTY;
      conditions.push({ operator: 'gte', value: BigInt(block.consensus_start) }, { operator: 'lte', value: BigInt(block.consensus_end) });
    }
    checkTimestampRange(query);
    const indexes = transactionIndexes(query.transactionIndexes);
    if (empty) return EMPTY;
    const { limit, order } = query.paging;
    const { range: timestamp, next: bound, upperBound } = await normalizeTimestamps(conditions, {
      enabled: config.query.bindTimestampRange,
      maxRangeNs: config.query.maxTransactionsTimestampRangeNs,
      order,
      now: now(),
      firstTransaction: () => findFirstTransaction(db),
    });
    // settled once the network is past the range's end; a sender given by address is resolved
    // through the entity table, and is left out of that rule
    const settle = (page: Page): Page =>
      upperBound === undefined || query.senders.some((s) => s.sender.kind !== 'id') ? page : { ...page, settledAfter: upperBound };
    if (timestamp.empty || sender.empty) return settle(EMPTY);

    const rows = await findResults<DetailedResultRow>(db, {
      contractId: 0n,
      timestamp,
      sender,
      transactionIndexes: indexes,
      internal: query.internal,
      order,
      limit,
      detailed: true,
      split: await splitAt(db, config.db.newestFirstSpanNs),
    });
    if (rows.length === 0) return settle(EMPTY);
    const { eths, candidates } = await findPageExtras(db, rows, config.query.maxRecordFileCloseIntervalNs);
    const results = networkResultView(rows, eths, blocksByTimestamp(candidates));
    let next = nextPageLink(request, query.paging, results.length, () => [
      ['timestamp', { value: results[results.length - 1]!.timestamp as string, inclusive: false }],
    ]);
    if (next === null && bound !== undefined) {
      next = nextLink(request.linkBase, request.path, request.query, order, [['timestamp', { value: formatTimestamp(bound)!, inclusive: false }]]);
    }
    return settle(listingPage('results', results, next));
  },
};
