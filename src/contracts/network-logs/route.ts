/**
 * GET /api/v1/contracts/results/logs: every contract's logs (the relay's eth_getLogs without an
 * address), by timestamp range and topics, or by transaction hash.
 */
import { formatTimestamp } from '../../format/timestamp.ts';
import { INT64, emptyRange, narrow } from '../../db/range.ts';
import { badRequest } from '../../http/errors.ts';
import { listingPage, paging } from '../../http/listing.ts';
import { nextLink } from '../../http/links.ts';
import type { Filter } from '../../http/params/filters.ts';
import type { Route } from '../../http/server.ts';
import { type Bounds, queryBoxes, topicValues } from '../logs/params.ts';
import { lastValues, logsNextLink } from '../logs/route.ts';
import { normalizeTimestamps } from '../shared/networkTimestamps.ts';
import { findFirstTransaction } from '../network-results/query.ts';
import { checkTimestampRange, parseNetworkLogsParams, timestampConditions } from './params.ts';
import { findLogs, findTransactionsByHash, pageBlocks } from './query.ts';
import { logView } from './view.ts';

const EMPTY = listingPage('logs', [], null);

const filter = (operator: Filter['operator'], value: bigint): Filter => ({ key: 'timestamp', operator, value: value.toString() });

/** Known non-lower-case spellings of `logs` reach the by-transaction route in the reference. */
const LOGS_SEGMENT = /\/logs\/?$/;

export const networkLogsRoute: Route = {
  path: '/api/v1/contracts/results/logs',
  cacheControl: 'public, max-age=10',
  async handler(request) {
    const { config, db, now } = request;
    const { filters, bounds, hash } = parseNetworkLogsParams(request.query, config);
    if (!LOGS_SEGMENT.test(request.path)) return notLowerCase(request.query);
    const page = paging(filters, config, 'desc');
    const { limit, order } = page;
    const conditions = timestampConditions(bounds);
    checkTimestampRange(conditions, hash !== undefined);

    let timestamp: Bounds['timestamp'];
    let bound: bigint | undefined;
    if (hash !== undefined) {
      let range = emptyRange<bigint>();
      for (const c of conditions) range = narrow(range, c.operator, c.value, INT64);
      const matches = range.empty ? [] : await findTransactionsByHash(db, hash.subarray(0, 32), range, order, config.response.limit.default);
      const match = hash.length === 32 ? matches[0] : matches.find((m) => m.hash === hash.toString('hex'));
      if (match === undefined) return EMPTY;
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
      timestamp = {};
      if (range.eq !== undefined) timestamp.equal = filter('eq', range.eq[0]!);
      if (range.lower) timestamp.lower = filter('gte', range.lower.value);
      if (range.upper) timestamp.upper = filter('lte', range.upper.value);
    }
    const boxes = queryBoxes({ timestamp, index: bounds.index });
    const rows =
      boxes.length === 0
        ? []
        : await findLogs(db, { contractId: 0n, boxes, topics: topicValues(filters), order, limit, closeIntervalNs: config.query.maxRecordFileCloseIntervalNs });
    const blocks = pageBlocks(rows);
    const logs = rows.map((row) => logView(row, blocks.get(row.consensus_timestamp)));
    let next = logsNextLink(request, bounds, page, logs);
    if (next === null && bound !== undefined && logs.length > 0 && !(bounds.timestamp.equal && bounds.index.equal)) {
      const values = lastValues(bounds, logs[logs.length - 1]!).map(([key, value]) =>
        key === 'timestamp' ? ([key, { value: formatTimestamp(bound)!, inclusive: true }] as const) : ([key, value] as const),
      );
      next = nextLink(request.linkBase, request.path, request.query, order, values);
    }
    return listingPage('logs', logs, next);
  },
};

/**
 * `/contracts/results/LOGS`: the reference runs this route first (its 400s stand), which adds
 * default `timestamp` and `index` bounds to a query without a timestamp, and then the
 * by-transaction route, which knows no query key: every key, those included, is unknown, once each.
 */
function notLowerCase(query: Map<string, unknown>): never {
  const keys = [...query.keys()];
  if (!query.has('timestamp')) keys.push('timestamp', 'index');
  throw badRequest([...new Set(keys)].map((key) => `Unknown query parameter: ${key}`));
}
