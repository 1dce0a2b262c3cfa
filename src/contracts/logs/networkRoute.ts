/**
 * GET /api/v1/contracts/results/logs: every contract's logs (the relay's eth_getLogs without an
 * address), by timestamp range and topics, or by transaction hash.
 */
import type { Config } from '../../config/config.ts';
import { INT64, emptyRange, narrow } from '../../db/range.ts';
import { notFound } from '../../http/request/errors.ts';
import { type LastValue, nextLink, nextQuery } from '../../http/request/links.ts';
import { type Paging, listingPage, paging } from '../../http/request/listing.ts';
import type { Filter } from '../../http/request/filters.ts';
import { type ParsedQuery, decodedSegment } from '../../http/request/query.ts';
import type { RequestContext, Route } from '../../http/route.ts';
import { type LogFilters, hasRange, queryBoxes, topicValues } from './params.ts';
import { linkValues } from './links.ts';
import { type LogView, logJson, logView } from './view.ts';
import { parseTransactionPath } from '../common/transactionPath.ts';
import { withBlockRange } from '../common/blockRange.ts';
import { resolveContracts } from '../common/resolve.ts';
import { findFirstTransaction, normalizeTimestamps } from '../common/networkTimestamps.ts';
import { checkTimestampRange, parseNetworkLogsParams, timestampConditions } from './params.ts';
import { findLogs } from './query.ts';
import { findTransactionsByHash } from './transactionHashes.ts';
import { networkLogsSchema } from './schema.ts';
import { pageBlocks } from './blocks.ts';
import { liveLogs } from './live/stream.ts';
import { liveFeedRegistry } from './live/feed.ts';
import { splitAt } from '../common/newestFirst.ts';

const filter = (operator: Filter['operator'], value: bigint): Filter => ({ key: 'timestamp', operator, value: value.toString() });

interface LogsPage {
  logs: LogView[];
  order: Paging['order'];
  /** The values of the next-page link, or null when there is none. */
  linkValues: Array<[string, LastValue]> | null;
  /** Page.settledAfter: the timestamp range's capped end (not for a lookup by transaction hash). */
  settledAfter?: bigint;
}

export const networkLogsRoute: Route = {
  path: '/api/v1/contracts/results/logs',
  listing: 'logs',
  metrics: liveFeedRegistry,
  events: liveLogs(true),
  cacheControl: 'public, max-age=10',
  schema: networkLogsSchema,
  async handler(incoming) {
    const { path } = incoming;
    // The router decodes the path and matches literal segments in any case; the reference does
    // neither (see byTransaction).
    const { results, logs: logsSegment } = incoming.rawSegments as { results: string; logs: string };
    if (results.includes('%') || (logsSegment !== 'logs' && decodedSegment(logsSegment) === 'logs')) throw notFound();
    if (logsSegment.includes('%')) byTransaction(decodedSegment(logsSegment), incoming.query, incoming.config);
    // block.number (an addition): the request for the blocks' consensus range instead
    const { request, empty } = await withBlockRange(incoming);
    const { config, query } = request;
    const page = await networkLogs(request, empty);
    if (logsSegment !== 'logs') byTransaction(logsSegment, page.linkValues ? nextQuery(query, page.order, page.linkValues) : query, config);
    const next = page.linkValues && nextLink(request.linkBase, path, query, page.order, page.linkValues);
    const listing = listingPage('logs', page.logs, next, logJson);
    return page.settledAfter === undefined ? listing : { ...listing, settledAfter: page.settledAfter };
  },
};

/** `empty`: a `block.number` range without a block (blockRange.ts): the valid request answers nothing. */
async function networkLogs(request: RequestContext, empty = false): Promise<LogsPage> {
  const { config, db, now } = request;
  const { filters, bounds, hash, addresses } = parseNetworkLogsParams(request.query, config);
  const page = paging(filters, config, 'desc');
  const { limit, order } = page;
  const conditions = timestampConditions(bounds);
  checkTimestampRange(conditions, hash !== undefined);
  if (empty) return { logs: [], order, linkValues: null };
  // the `address` filter (an addition): an address no contract has matches nothing
  const contractIds = addresses && (await resolveContracts(db, addresses));
  if (contractIds?.length === 0) return { logs: [], order, linkValues: null };

  let timestamp: LogFilters['timestamp'];
  let bound: bigint | undefined;
  // a hash may be shared by a later (failed) transaction that an order=desc lookup would pick: never settled
  let settledAfter: bigint | undefined;
  if (hash !== undefined) {
    let range = emptyRange<bigint>();
    for (const c of conditions) range = narrow(range, c.operator, c.value, INT64);
    const matches = range.empty ? [] : await findTransactionsByHash(db, hash.subarray(0, 32), range, order, config.response.limit.default);
    const match = hash.length === 32 ? matches[0] : matches.find((m) => m.hash === hash.toString('hex'));
    if (match === undefined) return { logs: [], order, linkValues: null };
    timestamp = { equal: filter('eq', BigInt(match.consensus_timestamp)) };
  } else {
    const normalized = await normalizeTimestamps(conditions, {
      enabled: config.query.bindTimestampRange,
      maxRangeNs: config.query.maxTransactionsTimestampRangeNs,
      order,
      now: now(),
      firstTransaction: () => findFirstTransaction(db),
    });
    const { range } = normalized;
    bound = normalized.next;
    settledAfter = normalized.upperBound;
    timestamp = {};
    if (range.eq !== undefined) timestamp.equal = filter('eq', range.eq[0]!);
    if (range.lower) timestamp.lower = filter('gte', range.lower.value);
    if (range.upper) timestamp.upper = filter('lte', range.upper.value);
  }
  // A timestamp filter dropped by the normalization takes an index range with it: the reference's
  // query parts then all come out empty, and its query has no condition on either.
  const dropped = timestamp.equal === undefined && !hasRange(timestamp) && hasRange(bounds.index);
  const boxes = queryBoxes({ timestamp, index: dropped ? {} : bounds.index });
  const rows =
    boxes.length === 0
      ? []
      : await findLogs(db, {
          contractId: 0n,
          ...(contractIds ? { contractIds } : {}),
          boxes,
          topics: topicValues(filters),
          order,
          limit,
          closeIntervalNs: config.query.maxRecordFileCloseIntervalNs,
          split: await splitAt(db, config.db.newestFirstSpanNs),
        });
  const blocks = pageBlocks(rows);
  const logs = rows.map((row) => logView(row, blocks.get(row.consensus_timestamp)));
  const result: LogsPage = { logs, order, linkValues: linkValues(bounds, page, logs, bound) };
  if (settledAfter !== undefined) result.settledAfter = settledAfter;
  return result;
}

/**
 * The reference's by-transaction route with `segment` as {transactionIdOrHash}, which is never a
 * valid one here: it answers 400 for the query's keys (`nonce` aside) or for the segment. It runs
 * when `logs` is percent-encoded (the literal route does not match), and after this route when
 * `logs` is not in lower case; this route then has written its paging bounds into the query.
 */
function byTransaction(segment: string, query: ParsedQuery, config: Config): never {
  parseTransactionPath(segment, query, config);
  throw notFound();
}
