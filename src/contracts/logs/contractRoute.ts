/** GET /api/v1/contracts/{contractIdOrAddress}/results/logs: the contract's EVM logs. */
import { listingPage, paging } from '../../http/request/listing.ts';
import { contractListingRef, parseContractPath } from '../../http/request/contract.ts';
import { parseFilters, refuseTimestampsBeyondInt64 } from '../../http/request/filters.ts';
import type { Route } from '../../http/route.ts';
import { resolveContract } from '../common/resolve.ts';
import { withBlockRange } from '../common/blockRange.ts';
import { LOG_RULES, checkTopicTimestamps, collapseTimestamps, parseLogFilters, queryBoxes, timestampsToNs, topicValues, validateLogFilters } from './params.ts';
import { findLogs } from './query.ts';
import { logJson, logView } from './view.ts';
import { logsNextLink } from './links.ts';
import { contractLogsSchema } from './schema.ts';
import { pageBlocks } from './blocks.ts';
import { liveLogs } from './live/stream.ts';
import { liveFeedRegistry } from './live/feed.ts';
import { splitAt } from '../common/newestFirst.ts';

const EMPTY = listingPage('logs', [], null);

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
