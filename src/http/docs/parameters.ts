/**
 * The parameter schemas several routes share: path parameters, and the query parameters with
 * their operator forms (`timestamp=gte:1700000000`, `index=lt:5`): a filter value is
 * `[operator:]value`, the operator one of `eq` (the default), `ne`, `lt`, `lte`, `gt`, `gte`.
 * Patterns describe the syntax the service accepts; the rules that combine several values are in
 * the descriptions. Query parameters carry no `examples`: Swagger UI would fill them in and send them.
 */
import type { Operator } from '../../db/range.ts';
import type { Order } from '../../db/sql.ts';
import { ERROR_BODY } from './components.ts';
import { type JsonSchema, ref } from './schema.ts';


export const ALL_OPERATORS: readonly Operator[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'];
export const RANGE_OPERATORS: readonly Operator[] = ['eq', 'lt', 'lte', 'gt', 'gte'];

/** `^((op|op):)?<value>$` for a value pattern without anchors. */
const filterPattern = (operators: readonly Operator[], value: string): string =>
  operators.length === 1 && operators[0] === 'eq' ? `^(eq:)?${value}$` : `^((${operators.join('|')}):)?${value}$`;

/** A query parameter that may be repeated: every value is one filter. */
export const repeatedFilter = (operators: readonly Operator[], value: string, description: string): JsonSchema => ({
  type: 'array',
  description,
  items: { type: 'string', pattern: filterPattern(operators, value) },
});

/** A query parameter of which one value counts (the last one when repeated). */
export const singleFilter = (operators: readonly Operator[], value: string, description: string): JsonSchema => ({
  type: 'string',
  description,
  pattern: filterPattern(operators, value),
});

const TIMESTAMP_VALUE = '\\d{1,10}(\\.\\d{1,9})?';

// ----- path parameters ------------------------------------------------------------------------

export const CONTRACT_ID_OR_ADDRESS: JsonSchema = {
  type: 'string',
  description:
    'The ID or hex encoded EVM address (with or without 0x prefix) associated with this contract: `shard.realm.num`, `realm.num`, ' +
    '`num`, a 40 hex digit EVM address (a long-zero address or the address of a contract created with CREATE2), optionally prefixed ' +
    'with `shard.realm.` instead of `0x`.',
  pattern: '^((\\d{1,4}\\.)?\\d{1,5}\\.\\d{1,12}|-?\\d{1,19}|(0x)?[A-Fa-f0-9]{40}|(\\d{1,4}\\.)?(\\d{1,5}\\.)?[A-Fa-f0-9]{40})$',
  examples: ['0.0.2001'],
};

export const TRANSACTION_ID_OR_HASH: JsonSchema = {
  type: 'string',
  description:
    'A transaction ID `shard.realm.num-seconds-nanos`, or a 32 byte hash with optional 0x prefix: the hash of an Ethereum ' +
    'transaction, or the first 32 bytes of the 48 byte hash of a Hedera transaction.',
  pattern: '^((0x)?[A-Fa-f0-9]{64}|\\d+\\.\\d+\\.\\d+-\\d{1,19}-\\d{1,9})$',
  examples: ['0.0.10-1234567890-000000000'],
};

export const TIMESTAMP_PATH: JsonSchema = {
  type: 'string',
  description: 'The Unix timestamp in seconds.nanoseconds format, the timestamp at which the associated transaction reached consensus.',
  pattern: `^${TIMESTAMP_VALUE}$`,
  examples: ['1234567890.000000700'],
};

// ----- query parameters -----------------------------------------------------------------------

export const LIMIT: JsonSchema = {
  type: 'integer',
  minimum: 1,
  default: 25,
  description:
    'The maximum number of items to return (response.limit.default, 25, when absent). A value above response.limit.max (100) ' +
    'returns that many. When repeated, the last value counts.',
};

export const order = (defaultOrder: Order): JsonSchema => ({
  type: 'string',
  enum: ['asc', 'desc'],
  default: defaultOrder,
  description: 'The order in which items are listed (any case). When repeated, the last value counts.',
});

/** `timestamp` as a filter: seconds.nanoseconds with the given operators. */
export const timestampFilter = (operators: readonly Operator[], description: string): JsonSchema =>
  repeatedFilter(
    operators,
    TIMESTAMP_VALUE,
    `${description} The value is a Unix timestamp in seconds.nanoseconds format with an optional comparison operator, e.g. \`gte:1748736000\`.`,
  );

/** `index` of the logs listings. */
export const LOG_INDEX: JsonSchema = repeatedFilter(
  RANGE_OPERATORS,
  '\\d{1,10}',
  'Contract log index, with an optional operator (`eq`, `lt`, `lte`, `gt`, `gte`). Requires a timestamp: `eq` with `timestamp` `eq`, ' +
    '`gt`/`gte` with a `timestamp` `gte` (or `eq`), `lt`/`lte` with a `timestamp` `lte` (or `eq`).',
);

export const topic = (n: 0 | 1 | 2 | 3): JsonSchema =>
  repeatedFilter(
    ['eq'],
    '(0x)?[0-9A-Fa-f]{1,64}',
    `The ${['first', 'second', 'third', 'fourth'][n]} topic associated with a contract log: 1 to 64 hex digits, leading zeros ` +
      'optional. Several values match any of them. Requires a timestamp range of at most query.maxTimestampRange (7 days) or a timestamp `eq`.',
  );

/** The query parameters of the two logs listings, in the reference's order. */
export const logFilters = (timestampDescription: string): Record<string, JsonSchema> => ({
  index: LOG_INDEX,
  limit: LIMIT,
  order: order('desc'),
  timestamp: timestampFilter(['eq', 'lt', 'lte', 'gt', 'gte'], timestampDescription),
  topic0: topic(0),
  topic1: topic(1),
  topic2: topic(2),
  topic3: topic(3),
});

/** The query parameters of the two results listings (besides `timestamp`). */
export const RESULT_FILTERS: Record<string, JsonSchema> = {
  'block.hash': singleFilter(
    ['eq'],
    '(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})',
    "The block's hash (32 bytes: a prefix of the 48 byte record file hash; or 48 bytes), lower case. Cannot be combined with block.number.",
  ),
  'block.number': repeatedFilter(
    ['eq', 'gt', 'gte', 'lt', 'lte'],
    '(\\d{1,19}|0x[0-9A-Fa-f]+)',
    "The block's number, decimal or 0x hex (`eq`). Cannot be combined with block.hash. Addition (additions.filters): `gt`, `gte`, " +
      "`lt`, `lte` and several values: the blocks' consensus range, as on the logs listings.",
  ),
  from: repeatedFilter(
    ALL_OPERATORS,
    '((\\d{1,4}\\.)?\\d{1,5}\\.\\d{1,12}|-?\\d{1,19}|(0x)?[0-9A-Fa-f]{40})',
    'Account ID or EVM address executing the contract (`shard.realm.num`, `realm.num`, `num`, or 40 hex digits), with an optional operator.',
  ),
  internal: { type: 'boolean', default: false, description: 'Whether to include child transactions or not' },
  limit: LIMIT,
  order: order('desc'),
};

export const TRANSACTION_INDEX: JsonSchema = repeatedFilter(
  ['eq'],
  '\\d{1,19}',
  'The transaction index in the block; requires block.number or block.hash. Several values match any of them.',
);

// ----- responses ------------------------------------------------------------------------------

/** An error answer: its description, the error body with an example message. */
export const errorResponse = (description: string, message: string): JsonSchema => ({
  ...ERROR_BODY,
  description,
  examples: [{ _status: { messages: [{ message }] } }],
});

export const BAD_REQUEST = errorResponse(
  'Invalid parameter: every invalid or unknown query parameter is named, one message each (`Invalid parameter: <name>`, `Unknown query parameter: <name>`).',
  'Invalid parameter: limit',
);
export const NOT_FOUND = errorResponse('Not found', 'Not found');
export const SERVICE_UNAVAILABLE = errorResponse('Service unavailable: the database does not answer (with `retry-after: 1`).', 'Service unavailable');

/** A stream refused by the per-client limit (an addition, streams.maxPerClient). */
export const TOO_MANY_STREAMS = errorResponse(
  'Addition: a client address with streams.maxPerClient streams (NDJSON or event streams) open asks for another; with `retry-after: 5` and ' +
    '`connection: close`. Beyond the per-process stream limits the answer is 503 with `retry-after: 5`.',
  'Too many streams from this client: at most 32 at once',
);

/** A 200 answer: `description` and the body's component schema. */
export const ok = (id: string, description = 'OK'): JsonSchema => ({ description, ...ref(id) });

/** The Indexed-Through header of every route's answer (an addition, additions.enabled). */
const INDEXED_THROUGH = {
  'Indexed-Through': {
    description:
      'Addition (additions.enabled): the newest block (record file) the database held before the answer was read (read at most ' +
      'once a second per server, so it may be up to about a second behind), ' +
      '`block=<number>; timestamp=<consensus end>`. Everything up to that block is in the answer: a client that asks about a ' +
      'block at or below it needs no retry.',
    schema: { type: 'string', pattern: '^block=\\d+; timestamp=\\d+\\.\\d{9}$' },
  },
};

/**
 * A listing's 200 answer: one page as JSON, or (an addition, additions.enabled) with
 * `Accept: application/x-ndjson` the whole range as NDJSON.
 */
export const listingOk = (id: string, description = 'OK'): JsonSchema => ({
  description,
  headers: INDEXED_THROUGH,
  content: {
    'application/json': { schema: ref(id) },
    'application/x-ndjson': {
      schema: {
        type: 'string',
        description:
          'Addition (additions.enabled): every item of the filtered range, one JSON object per line in the listing\'s order ' +
          '(the concatenation of every page), at most additions.ndjson.maxItems; the last line is a status object: ' +
          '`{"_status":{"complete":true,"items":N}}`, `{"_status":{"complete":false,"items":N,"next":"<link>"}}` at the maximum, ' +
          'or the usual error body when a page failed. Only for a client that names the type in Accept and prefers it to JSON; ' +
          'read as the client takes it; a client that takes nothing for server.stallTimeout is cut.',
      },
    },
  },
});

/** A logs listing's 200 answer: listingOk's, and (an addition) the live logs as Server-Sent Events. */
export const logsOk = (id: string): JsonSchema => {
  const ok = listingOk(id) as { content: Record<string, unknown> };
  return {
    ...ok,
    content: {
      ...ok.content,
      'text/event-stream': {
        schema: {
          type: 'string',
          description:
            'Addition (additions.enabled): with `Accept: text/event-stream`, every matching log once, in (consensus timestamp, index) ' +
            'order, as `event: log`, `id: <consensus_timestamp>-<index>`, `data: <the log item>`: first the backlog from the lower ' +
            '`timestamp` bound (`gt`/`gte`, at most live.maxBacklog back; default: the newest block), then each new block\'s logs once ' +
            'the importer committed it. `Last-Event-ID` (header) or `lastEventId` (query) resumes right after that event. A comment ' +
            'line at least every live.heartbeatMs; a client that does not keep up gets a last `event: error` and is closed, one that ' +
            'takes nothing for server.stallTimeout is cut. Only the topic filters, `timestamp` (one lower bound), `address` and ' +
            '`lastEventId` apply; a `Last-Event-ID` after the newest block or beyond int64 is a 400; 429 or 503 with Retry-After ' +
            'beyond the stream limits (streams.*, live.maxSubscribers). Opens with Indexed-Through; HEAD answers the headers alone.',
        },
      },
    },
  };
};

/** `lastEventId`, the Last-Event-ID of a live stream for clients that cannot set headers (an addition). */
export const LAST_EVENT_ID: JsonSchema = {
  type: 'string',
  pattern: '^\\d{1,19}-\\d{1,10}$',
  description: 'Addition (live logs, `Accept: text/event-stream` only): resume right after this event id, as the Last-Event-ID header does.',
};

/** `block.number` as a range (an addition, additions.filters): the listing of the blocks' consensus range. */
export const BLOCK_NUMBER_RANGE: JsonSchema = repeatedFilter(
  ['eq', 'gt', 'gte', 'lt', 'lte'],
  '(\\d{1,19}|0x[0-9A-Fa-f]{1,16})',
  'Addition (additions.filters): blocks by number, decimal or 0x hex, with an optional operator; the answer is the one for the ' +
    'consensus range from the first block\'s start to the last block\'s end, intersected with `timestamp`.',
);

/** `address` on every contract's logs (an addition, additions.filters). */
export const LOG_ADDRESS: JsonSchema = repeatedFilter(
  ['eq'],
  '((\\d{1,4}\\.)?\\d{1,5}\\.\\d{1,12}|-?\\d{1,19}|(0x)?[0-9A-Fa-f]{40}|(\\d{1,4}\\.)?(\\d{1,5}\\.)?[A-Fa-f0-9]{40})',
  'Addition (additions.filters): the logs of these contracts only (1 to query.maxRepeatedQueryParameters values, any form the ' +
    'path takes: id, EVM address long-zero or create2); an address that is no contract matches nothing.',
);
