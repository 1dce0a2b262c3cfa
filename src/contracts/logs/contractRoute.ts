/** GET /api/v1/contracts/{contractIdOrAddress}/results/logs: the contract's EVM logs. */
import type { LastValue } from '../../http/request/links.ts';
import { type LinkRequest, type Paging, listingPage, nextPageLink, paging } from '../../http/request/listing.ts';
import { contractListingRef, parseContractPath } from '../../http/request/contract.ts';
import { parseFilters, refuseTimestampsBeyondInt64 } from '../../http/request/filters.ts';
import type { Route } from '../../http/route.ts';
import { resolveContract } from '../common/resolve.ts';
import { withBlockRange } from '../common/blockRange.ts';
import { type LogFilters, LOG_RULES, checkTopicTimestamps, collapseTimestamps, parseLogFilters, queryBoxes, timestampsToNs, topicValues, validateLogFilters } from './params.ts';
import { findLogs } from './query.ts';
import { type LogView, logJson, logView } from './view.ts';
import { contractLogsSchema } from './schema.ts';
import { pageBlocks } from './blocks.ts';
import { liveLogs } from './live/stream.ts';
import { liveFeedRegistry } from './live/feed.ts';
import { splitAt } from '../common/newestFirst.ts';

const EMPTY = listingPage('logs', [], null);

/**
 * The last values of a full page for its next link: the timestamp (inclusive) unless the request
 * asked for one timestamp, the index (exclusive) unless it asked for one index.
 */
export function lastValues(bounds: LogFilters, last: LogView): Array<[string, LastValue]> {
  const values: Array<[string, LastValue]> = [];
  const { timestamp, index } = bounds;
  if (timestamp.lower || timestamp.upper || !timestamp.equal) {
    values.push(['timestamp', { value: last.timestamp ?? '', inclusive: !index.equal }]);
  }
  if (index.lower || index.upper || !index.equal) {
    values.push(['index', { value: String(last.index), inclusive: false }]);
  }
  return values;
}

/** The next link of a page of logs: none for a single-log request (timestamp eq and index eq). */
export function logsNextLink(request: LinkRequest, bounds: LogFilters, page: Paging, logs: readonly LogView[]): string | null {
  if (bounds.timestamp.equal !== undefined && bounds.index.equal !== undefined) return null;
  return nextPageLink(request, page, logs.length, () => lastValues(bounds, logs[logs.length - 1]!));
}

export const contractLogsRoute: Route = {
  path: '/api/v1/contracts/:contractId/results/logs',
  listing: 'logs',
  metrics: liveFeedRegistry,
  events: liveLogs(false),
  cacheControl: 'public, max-age=1',
  schema: contractLogsSchema,
  async handler(incoming) {
    // block.number (an addition): the request for the blocks' consensus range instead
    const { request, empty } = await withBlockRange(incoming);
    const { config, db, params } = request;
    const path = parseContractPath(params.contractId!);
    const validated = parseFilters(request.query, LOG_RULES, config.query.maxRepeatedQueryParameters);
    const filters = collapseTimestamps(timestampsToNs(validated));
    checkTopicTimestamps(filters, config);
    const contractId = await resolveContract(db, contractListingRef(path, config));
    if (contractId === 0n) return EMPTY;

    const bounds = parseLogFilters(filters);
    validateLogFilters(bounds);
    refuseTimestampsBeyondInt64(validated);
    const boxes = queryBoxes(bounds);
    const page = paging(filters, config, 'desc');
    if (boxes.length === 0 || empty) return EMPTY;

    const { limit, order } = page;
    const closeIntervalNs = config.query.maxRecordFileCloseIntervalNs;
    const split = await splitAt(db, config.db.newestFirstSpanNs);
    const rows = await findLogs(db, { contractId, boxes, topics: topicValues(filters), order, limit, closeIntervalNs, split });
    const blocks = pageBlocks(rows);
    const logs = rows.map((row) => logView(row, blocks.get(row.consensus_timestamp)));
    return listingPage('logs', logs, logsNextLink(request, bounds, page, logs), logJson);
  },
};
