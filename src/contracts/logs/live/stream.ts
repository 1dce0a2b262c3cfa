/**
 * The live logs of the logs routes (an addition): with `Accept: text/event-stream`,
 * `/contracts/results/logs` and `/contracts/{id}/results/logs` answer a Server-Sent Events stream of
 * every matching log, once each, in (consensus_timestamp, index) order:
 *
 *   event: log
 *   id: <consensus_timestamp>-<index>
 *   data: <the log exactly as the listing's item>
 *
 * Filters: the topics (OR within a key, AND across keys), the contract of the path, and `address`
 * (with additions.filters). A lower `timestamp` bound (`gte`/`gt`) is where the stream starts, at
 * most live.maxBacklog back (default: now); `Last-Event-ID` (the header, or the `lastEventId` query
 * parameter) resumes right after that event; an id after the newest block or beyond int64 is a
 * 400. Without either the stream starts at the newest block. First the backlog is read with the
 * listing's own statement up to the process's feed (feed.ts), page by page as the client takes
 * them, each page sized to what a stream may hold; then the stream joins the feed, which sends each
 * committed block's logs once, with no gap and no repeat at the seam.
 */
import type { Config } from '../../../config/config.ts';
import type { Db } from '../../../db/db.ts';
import { INT32, INT64, type Range, emptyRange, narrow } from '../../../db/range.ts';
import { toJson } from '../../../format/json.ts';
import { badRequest } from '../../../http/request/errors.ts';
import { type Filter, parseFilters } from '../../../http/request/filters.ts';
import { invalidParameter } from '../../../http/request/messages.ts';
import type { ParsedQuery } from '../../../http/request/query.ts';
import { type Rules, anyOperator, eqOnly } from '../../../http/request/rules.ts';
import { isHex64, parseTimestampNs } from '../../../http/request/values.ts';
import { type ContractRef, contractListingRef, isContractPathSyntax, parseContractPath } from '../../../http/request/contract.ts';
import { type EventSink, type EventsHandler, type RequestContext, encodeEvent } from '../../../http/route.ts';
import { indexedThrough } from '../../../http/cache/settledCompute.ts';
import { pageSizeFor } from '../../../http/server/streams/limits.ts';
import { resolveContract, resolveContracts } from '../../common/resolve.ts';
import { pageBlocks } from '../blocks.ts';
import { TOPIC_KEYS, type TopicKey, topicValues } from '../params.ts';
import { findLogs } from '../query.ts';
import { type LogView, logView } from '../view.ts';
import { type FeedSubscriber, type LiveBatch, type LiveLog, LogFeed } from './feed.ts';

/** Rows of the backlog's first read; later reads take as many as fit in the stream's page bytes, at most BACKLOG_PAGE_MAX. */
const BACKLOG_PAGE = 100;
const BACKLOG_PAGE_MAX = 500;
const INT64_MAX = INT64.max!;
/** The highest log index: a cursor at (t, INT32_MAX) has sent every log of t. */
const INT32_MAX = Number(INT32.max!);

const TOPIC_RULES: Array<[string, ReturnType<typeof eqOnly>]> = TOPIC_KEYS.map((key) => [key, eqOnly(isHex64)]);
const START_RULE = anyOperator((value) => parseTimestampNs(value) !== undefined);
const EVENT_ID = /^(\d{1,19})-(\d{1,10})$/;

/** Where a stream is: every log up to and including (timestamp, index) was sent. */
interface Cursor {
  timestamp: bigint;
  index: number;
}

interface LiveFilter {
  /** Equal for equal filters (the feed matches and encodes once per key). */
  key: string;
  /** undefined: every contract. */
  contracts: Set<string> | undefined;
  /** Per topic key, the stored (trimmed) hex values; undefined where the key is not filtered. */
  topics: Array<Set<string> | undefined>;
  topicValues: Map<TopicKey, Buffer[]>;
  contractId: bigint;
  contractIds?: bigint[];
}

const after = (log: { timestamp: bigint; index: number }, cursor: Cursor) =>
  log.timestamp > cursor.timestamp || (log.timestamp === cursor.timestamp && log.index > cursor.index);

function matches(filter: LiveFilter, log: LiveLog): boolean {
  if (filter.contracts !== undefined && !filter.contracts.has(log.contractId)) return false;
  for (let n = 0; n < 4; n++) {
    const wanted = filter.topics[n];
    if (wanted !== undefined && (log.topics[n] === null || !wanted.has(log.topics[n]!))) return false;
  }
  return true;
}

interface LiveParams {
  filters: Filter[];
  start?: Filter;
  lastEventId?: Cursor;
  addresses: ContractRef[];
}

/** The request's filters and start; 400 for anything a stream cannot take (an upper bound, paging, `index`). */
export function parseLiveParams(query: ParsedQuery, config: Config, lastEventHeader: string | undefined, network: boolean): LiveParams {
  const rules: Rules = new Map([
    ...TOPIC_RULES,
    ['timestamp', START_RULE],
    ['lasteventid', eqOnly((value) => EVENT_ID.test(value))],
    ...(network && config.additions.filters ? [['address', eqOnly(isContractPathSyntax)] as [string, ReturnType<typeof eqOnly>]] : []),
  ]);
  const filters = parseFilters(query, rules, config.query.maxRepeatedQueryParameters);
  const starts = filters.filter((f) => f.key === 'timestamp');
  if (starts.length > 1 || starts.some((f) => f.operator !== 'gt' && f.operator !== 'gte')) {
    throw badRequest(`${invalidParameter('timestamp')}: a live stream takes one lower bound (gt or gte), where it starts`);
  }
  const id = lastEventHeader ?? filters.find((f) => f.key === 'lasteventid')?.value;
  const match = id === undefined ? undefined : EVENT_ID.exec(id.trim());
  if (id !== undefined && match === null) throw badRequest('Invalid Last-Event-ID: expected <consensus_timestamp>-<index>');
  if (match && (BigInt(match[1]!) > INT64_MAX || Number(match[2]) > INT32_MAX)) {
    throw badRequest('Invalid Last-Event-ID: its consensus timestamp is beyond int64 or its index beyond int32');
  }
  const addresses = filters
    .filter((f) => f.key === 'address')
    .map((f) => {
      try {
        return contractListingRef(parseContractPath(f.value), config);
      } catch {
        throw badRequest(invalidParameter('address'));
      }
    });
  return {
    filters,
    ...(starts[0] ? { start: starts[0] } : {}),
    ...(match ? { lastEventId: { timestamp: BigInt(match[1]!), index: Number(match[2]) } } : {}),
    addresses,
  };
}

/** The feeds of this process, one per database (the memo of a Db, as the other per-database memos). */
const feeds = new WeakMap<Db, LogFeed>();

/** The process's feed of a database (shared by the event streams and the JSON-RPC subscriptions, src/rpc). */
export function feedOf(context: Pick<RequestContext, 'db' | 'config'>): LogFeed {
  let feed = feeds.get(context.db);
  if (feed === undefined) {
    feed = new LogFeed(context.db, context.config.live.tickMs, () => {});
    feeds.set(context.db, feed);
  }
  return feed;
}

/** The boxes of the backlog after `cursor` up to `through`, for the listing's statement. */
function backlogBoxes(cursor: Cursor, through: bigint) {
  const upTo = narrow(emptyRange<bigint>(), 'lte', through, INT64);
  const sameTime: Range<bigint> = narrow(narrow(emptyRange<bigint>(), 'gte', cursor.timestamp, INT64), 'lte', cursor.timestamp, INT64);
  return [
    { timestamp: narrow(sameTime, 'lte', through, INT64), index: narrow(emptyRange<bigint>(), 'gt', BigInt(cursor.index), INT32) },
    { timestamp: narrow(upTo, 'gt', cursor.timestamp, INT64), index: emptyRange<bigint>() },
  ].filter((box) => !box.timestamp.empty && !box.index.empty);
}

const eventId = (log: { timestamp: bigint; index: number }) => `${log.timestamp}-${log.index}`;

/** One log's event: `log`, its position as the id, its item as the data. */
const encodeLog = (log: { timestamp: bigint; index: number }, view: LogView): string => encodeEvent('log', eventId(log), toJson(view));

/** A feed log's event, encoded once for every stream that sends it. */
const encodeLive = (log: LiveLog): string => (log.encoded ??= encodeLog(log, log.view));

/** The filter's key: its contracts and topic values, sorted. */
const filterKey = (contracts: Set<string> | undefined, topics: Array<Set<string> | undefined>): string =>
  JSON.stringify([contracts ? [...contracts].sort() : null, topics.map((values) => (values ? [...values].sort() : null))]);

/** The events handler of a logs route; `network`: every contract's logs (else the path's contract). */
export function liveLogs(network: boolean): EventsHandler {
  return async (context) => {
    const { config, db, query, params } = context;
    const parsed = parseLiveParams(query, config, context.lastEventId, network);
    const topics = topicValues(parsed.filters);
    let contractId = 0n;
    let contractIds: bigint[] | undefined;
    if (!network) contractId = await resolveContract(db, contractListingRef(parseContractPath(params.contractId!), config));
    else if (parsed.addresses.length > 0) contractIds = await resolveContracts(db, parsed.addresses);
    const contracts = !network ? new Set([contractId.toString()]) : contractIds && new Set(contractIds.map(String));
    const topicSets = TOPIC_KEYS.map((key) => {
      const values = topics.get(key);
      return values && new Set(values.map((v) => v.toString('hex')));
    });
    const filter: LiveFilter = {
      key: filterKey(contracts, topicSets),
      contracts,
      topics: topicSets,
      topicValues: topics,
      contractId,
      ...(contractIds ? { contractIds } : {}),
    };
    const feed = feedOf(context);
    const through = await feed.position();
    const oldest = context.now() - config.live.maxBacklogNs;
    let cursor: Cursor;
    if (parsed.lastEventId) {
      cursor = parsed.lastEventId;
      // an event of a block this server has not seen yet: checked against the database itself (the feed's position lags a tick)
      if (cursor.timestamp > through && cursor.timestamp > BigInt((await feed.newest())?.consensus_end ?? 0)) {
        throw badRequest('Invalid Last-Event-ID: it is after the newest block; resume with the id of an event this service sent');
      }
    } else if (parsed.start) {
      const ns = parseTimestampNs(parsed.start.value)!;
      if (ns > INT64_MAX) throw badRequest(`${invalidParameter('timestamp')}: beyond int64`);
      cursor = parsed.start.operator === 'gt' ? { timestamp: ns, index: INT32_MAX } : { timestamp: ns - 1n, index: INT32_MAX };
    } else cursor = { timestamp: through, index: INT32_MAX };
    // an explicit start (or resumption) at most live.maxBacklog back; the default is the newest block
    if ((parsed.start || parsed.lastEventId) && cursor.timestamp < oldest) throw badRequest(`${invalidParameter('timestamp')}: a live stream starts at most ${config.live.maxBacklogNs / 1_000_000_000n} s back`);
    const header = indexedThrough({ settledThrough: through, settledBlock: feed.throughBlock, failedOver: false });
    return {
      backlog: cursor.timestamp < through,
      ...(header === undefined ? {} : { indexedThrough: header }),
      run: (sink: EventSink) => run(db, config, feed, filter, cursor, sink),
    };
  };
}

async function run(db: Db, config: Config, feed: LogFeed, filter: LiveFilter, start: Cursor, sink: EventSink): Promise<void> {
  let cursor = start;
  const subscriber: FeedSubscriber = {
    filterKey: filter.key,
    matches: (log) => matches(filter, log),
    deliver(batch: LiveBatch) {
      if (sink.isClosed) return;
      const { logs } = batch;
      const last = logs[logs.length - 1];
      if (last === undefined || !after(last, cursor)) return;
      // the feed cannot wait for one client: one that has not taken what earlier ticks sent (more than
      // live.maxBufferedBytes still waiting) is closed. Judged before this batch is written, so that a
      // batch bigger than the limit does not close a client that reads as fast as it comes.
      if (!sink.keepUp()) return;
      // the usual case: the whole batch is new to this stream, and goes out as the chunk every such stream shares
      if (after(logs[0]!, cursor)) {
        if (!sink.sendEncoded(batch.chunk(encodeLive), logs.length)) return;
      } else {
        const fresh = logs.filter((log) => after(log, cursor));
        if (fresh.length > 0 && !sink.sendEncoded(fresh.map(encodeLive).join(''), fresh.length)) return;
      }
      cursor = { timestamp: last.timestamp, index: last.index };
    },
  };
  // the backlog, page by page, up to the feed's position; then the feed, from exactly there
  let limit = BACKLOG_PAGE;
  for (;;) {
    const through = await feed.position();
    for (;;) {
      if (sink.isClosed) return;
      const boxes = backlogBoxes(cursor, through);
      if (boxes.length === 0) break;
      let rows;
      try {
        const pageLimit = limit;
        rows = await sink.read(() =>
          findLogs(db, {
            contractId: filter.contractId,
            ...(filter.contractIds ? { contractIds: filter.contractIds } : {}),
            boxes,
            topics: filter.topicValues,
            order: 'asc',
            limit: pageLimit,
            closeIntervalNs: config.query.maxRecordFileCloseIntervalNs,
          }),
        );
      } catch {
        sink.close('Service unavailable: the logs could not be read; reconnect with Last-Event-ID to resume');
        return;
      }
      const blocks = pageBlocks(rows);
      const fresh = rows
        .map((row) => ({ row, timestamp: BigInt(row.consensus_timestamp), index: row.index }))
        .filter((log) => after(log, cursor));
      const page = fresh.map((log) => encodeLog(log, logView(log.row, blocks.get(log.row.consensus_timestamp)))).join('');
      const lastFresh = fresh[fresh.length - 1];
      if (lastFresh !== undefined) {
        if (!sink.sendEncoded(page, fresh.length)) return;
        cursor = { timestamp: lastFresh.timestamp, index: lastFresh.index };
      }
      if (rows.length < limit) break;
      limit = pageSizeFor(fresh.length, page.length, sink.pageBytes, BACKLOG_PAGE_MAX);
      // the backlog goes at the client's pace: the next page once this one is taken
      await sink.drained();
    }
    // the feed has not moved since `through` was read: join it now (no await in between)
    if (feed.through === through) {
      // the backlog ends at the feed's position even where its last logs matched nothing
      if (cursor.timestamp < through) cursor = { timestamp: through, index: INT32_MAX };
      feed.attach(subscriber);
      sink.joinedLive();
      break;
    }
  }
  try {
    await sink.closed;
  } finally {
    feed.detach(subscriber);
  }
}
