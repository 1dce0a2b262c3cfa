import { parseContractParam } from '../../http/contractParam.ts';
import {
  type Filter,
  type FilterRule,
  buildFilters,
  effectiveLimit,
  effectiveOrder,
  eqOnly,
  limitRule,
  orderRule,
} from '../../http/filters.ts';
import { type LastValue, nextLink } from '../../http/links.ts';
import type { Route } from '../../http/server.ts';
import { resolveListingContract } from '../shared/listingContract.ts';
import { timestampRule } from '../shared/rules.ts';
import {
  type Bounds,
  TOPIC_KEYS,
  type TopicKey,
  checkTopicTimestamps,
  collapseTimestamps,
  isLaxIndex,
  isTopic,
  parseBounds,
  queryBoxes,
  timestampsToNs,
  topicBytes,
  validateBounds,
} from './bounds.ts';
import { findLogs, pageBlocks } from './query.ts';
import { type LogView, logView } from './view.ts';

const RULES = new Map<string, FilterRule>([
  ['index', (_op, value) => isLaxIndex(value)],
  ['limit', limitRule],
  ['order', orderRule],
  ['timestamp', timestampRule],
  ...TOPIC_KEYS.map((key) => [key, eqOnly(isTopic)] as [string, FilterRule]),
]);

const EMPTY = { body: { logs: [], links: { next: null } }, next: null };

function topicValues(filters: readonly Filter[]): Map<TopicKey, Buffer[]> {
  const topics = new Map<TopicKey, Buffer[]>();
  for (const filter of filters) {
    if (!(TOPIC_KEYS as readonly string[]).includes(filter.key)) continue;
    const key = filter.key as TopicKey;
    const values = topics.get(key) ?? [];
    values.push(topicBytes(filter.value));
    topics.set(key, values);
  }
  return topics;
}

/**
 * The last values of a full page for its next link: the timestamp (inclusive) unless the request
 * asked for one timestamp, the index (exclusive) unless it asked for one index.
 */
function lastValues(bounds: Bounds, last: LogView): Array<[string, LastValue]> {
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

/** GET /api/v1/contracts/{contractIdOrAddress}/results/logs: the contract's EVM logs. */
export const contractLogsRoute: Route = {
  path: '/api/v1/contracts/:contractId/results/logs',
  headers: { 'cache-control': 'public, max-age=1' },
  async handler({ config, db, query, path, params, linkBase }) {
    const param = parseContractParam(params.contractId!);
    const validated = buildFilters(query, RULES, config.query.maxRepeatedQueryParameters);
    const filters = collapseTimestamps(timestampsToNs(validated));
    checkTopicTimestamps(filters, config);
    const contractId = await resolveListingContract(db, param, config);
    if (contractId === 0n) return EMPTY;

    const bounds = parseBounds(filters);
    validateBounds(bounds);
    const boxes = queryBoxes(bounds);
    const limit = effectiveLimit(filters, config.response.limit.default, config.response.limit.max);
    const order = effectiveOrder(filters, 'desc');
    if (boxes.length === 0) return EMPTY;

    const closeIntervalNs = config.query.maxRecordFileCloseIntervalNs;
    const rows = await findLogs(db, { contractId, boxes, topics: topicValues(filters), order, limit, closeIntervalNs });
    const blocks = pageBlocks(rows);
    const logs = rows.map((row) => logView(row, blocks.get(row.consensus_timestamp)));

    let next: string | null = null;
    const single = bounds.timestamp.equal !== undefined && bounds.index.equal !== undefined;
    if (logs.length >= limit && !single) {
      next = nextLink(linkBase, path, query, order, lastValues(bounds, logs[logs.length - 1]!));
    }
    return { body: { logs, links: { next } }, next };
  },
};
