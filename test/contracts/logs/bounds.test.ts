import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LogFilters, type Box, checkTopicTimestamps, collapseTimestamps, parseLogFilters, queryBoxes, timestampsToNs, validateLogFilters } from '../../../src/contracts/logs/params.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { ClientError } from '../../../src/http/request/errors.ts';
import type { Filter } from '../../../src/http/request/filters.ts';
import { isHex64 as isTopic, isLaxNumber as isLaxIndex, parsePgInt4 as indexValue, trimmedBytes as topicBytes } from '../../../src/http/request/values.ts';
import type { Operator } from '../../../src/db/range.ts';

const config = loadConfig({}, '/nonexistent');

/** "timestamp=gte:1&index=2" -> filters (values as typed; timestamps converted to ns). */
function filters(search: string): Filter[] {
  const out: Filter[] = [];
  for (const pair of search.split('&').filter(Boolean)) {
    const [key, text] = pair.split('=') as [string, string];
    const parts = text.split(':');
    out.push(parts.length === 1 ? { key, operator: 'eq', value: text } : { key, operator: parts[0] as Operator, value: parts[1]! });
  }
  return timestampsToNs(out);
}

function errorOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ClientError, String(err));
    assert.equal(err.status, 400);
    assert.equal(err.messages.length, 1);
    return err.messages[0];
  }
}

/** Steps 3-8 of 6.2 for a query string; the first error message or undefined. */
function check(search: string): string | undefined {
  return errorOf(() => {
    const collapsed = collapseTimestamps(filters(search));
    checkTopicTimestamps(collapsed, config);
    const bounds = parseLogFilters(collapsed);
    validateLogFilters(bounds);
    queryBoxes(bounds);
  });
}

test('topic values are converted like the importer stores them', () => {
  assert.equal(topicBytes('0x0000000000000000000000000000000000000000000000000000000000000abc').toString('hex'), '0abc');
  assert.equal(topicBytes('abc').toString('hex'), '0abc');
  assert.equal(topicBytes('0xABC').toString('hex'), '0abc');
  assert.equal(topicBytes('0a').toString('hex'), '0a');
  assert.equal(topicBytes('ddf252ad').toString('hex'), 'ddf252ad');
  assert.equal(topicBytes('1').toString('hex'), '01');
  assert.equal(topicBytes('0x100').toString('hex'), '0100');
  // all zeros -> empty bytes (an all-zero topic is stored as 00 and cannot be found)
  assert.equal(topicBytes('0x0000').length, 0);
  assert.equal(topicBytes('0').length, 0);
  for (const ok of ['a', '0xa', '0'.repeat(64), `0x${'F'.repeat(64)}`]) assert.ok(isTopic(ok), ok);
  for (const bad of ['', '0x', '0X1', '0xqqq', '00qqq', 'g', '1'.repeat(65), ' 1']) assert.ok(!isTopic(bad), bad);
});

test('index: lax validation like the reference, then an int4 integer before the query', () => {
  for (const ok of ['0', '1', '00002', '1.5', '1e0', '0x1', ' 1', '-0', '+1', '2147483648']) assert.ok(isLaxIndex(ok), ok);
  for (const bad of ['-1', 'a', '', 'Infinity', '1e400', 'NaN']) assert.ok(!isLaxIndex(bad), bad);
  assert.equal(indexValue('00002'), 2);
  assert.equal(indexValue('+1'), 1);
  assert.equal(indexValue('-0'), 0);
  assert.equal(indexValue('2147483647'), 2147483647);
  // PostgreSQL reads whitespace around an integer (the reference binds the text): ` 1` is 1 there
  assert.equal(indexValue(' 1'), 1);
  assert.equal(indexValue('1 '), 1);
  assert.equal(indexValue('\t2\n'), 2);
  for (const bad of ['1.5', '1e0', '0x1', '1 2', '', ' ', '2147483648', '99999999999999999999999']) assert.equal(indexValue(bad), undefined, bad);
  assert.equal(check('timestamp=5&index= 1'), undefined);
  assert.equal(check('timestamp=5&index=1.5'), 'Invalid parameter: index');
  assert.equal(check('timestamp=5&index=gt:2147483648'), 'Invalid parameter: index');
  assert.equal(check('timestamp=5&index=gt:2147483647'), undefined);
});

test('gte:T and lte:T collapse into one eq appended after the other filters', () => {
  const collapsed = collapseTimestamps(filters('timestamp=gte:1.5&index=1&timestamp=lte:1.500000000'));
  assert.deepEqual(collapsed, [
    { key: 'index', operator: 'eq', value: '1' },
    { key: 'timestamp', operator: 'eq', value: '1500000000' },
  ]);
  assert.equal(collapseTimestamps(filters('timestamp=gte:1&timestamp=lte:2')).length, 2);
  assert.equal(collapseTimestamps(filters('timestamp=gte:1&timestamp=gte:1')).length, 2);
  assert.equal(collapseTimestamps(filters('timestamp=gt:1&timestamp=lte:1')).length, 2);
  assert.equal(collapseTimestamps(filters('timestamp=gte:1&timestamp=lte:1&timestamp=lte:1')).length, 3);
  // collapsed, index=eq is then valid
  assert.equal(check('timestamp=gte:7&timestamp=lte:7&index=1'), undefined);
});

test('topic searches need a valid timestamp range: every reason, in order', () => {
  const prefix = 'Cannot search topics without a valid timestamp range: ';
  const t = (search: string) => check(`topic0=0xabc&${search}`);
  assert.equal(check('topic0=0xabc'), `${prefix}No timestamp range or eq operator provided`);
  assert.equal(t('timestamp=ne:1&timestamp=gt:1&timestamp=gt:2'), `${prefix}Not equals operator not supported for timestamp param`);
  assert.equal(t('timestamp=gt:1&timestamp=gte:2&timestamp=lt:2&timestamp=lt:3'), `${prefix}Multiple gt or gte operators not permitted for timestamp param`);
  assert.equal(t('timestamp=lt:1&timestamp=lte:2&timestamp=1'), `${prefix}Multiple lt or lte operators not permitted for timestamp param`);
  assert.equal(t('timestamp=1&timestamp=gt:1'), `${prefix}Cannot combine eq with ne, gt, gte, lt, or lte for timestamp param`);
  assert.equal(t('timestamp=gt:1'), `${prefix}Timestamp range must have gt (or gte) and lt (or lte), or eq operator`);
  assert.equal(t('timestamp=lte:1'), `${prefix}Timestamp range must have gt (or gte) and lt (or lte), or eq operator`);
  const range = `${prefix}Timestamp range by the lower and upper bounds must be positive and within 7d`;
  assert.equal(t('timestamp=gte:1&timestamp=lt:604801'), undefined); // exactly 7 days
  assert.equal(t('timestamp=gte:1&timestamp=lte:604801'), range); // 7 days + 1 ns
  assert.equal(t('timestamp=gt:0.999999999&timestamp=lt:604801'), undefined);
  assert.equal(t('timestamp=gt:1&timestamp=lt:604801.000000001'), undefined);
  assert.equal(t('timestamp=gt:1&timestamp=lt:604801.000000002'), range);
  assert.equal(t('timestamp=gte:1639020141&timestamp=lte:1639000141'), range); // inverted
  assert.equal(t('timestamp=gt:5&timestamp=lt:6'), undefined); // 999999999 ns
  assert.equal(t('timestamp=gt:5&timestamp=lt:5.000000001'), range); // empty range
  assert.equal(t('timestamp=gt:5&timestamp=lt:5.000000002'), undefined); // one ns
  // several eq pass the range rule and fail bound parsing; gte:T&lte:T is an eq after the collapse
  assert.equal(t('timestamp=1&timestamp=2'), 'Only one equal (eq) operator is allowed for timestamp');
  assert.equal(t('timestamp=1&timestamp=1'), 'Only one equal (eq) operator is allowed for timestamp');
  assert.equal(t('timestamp=gte:9&timestamp=lte:9'), undefined);
  // the configured text appears verbatim
  const custom = loadConfig({}, '/nonexistent', { query: { maxTimestampRange: '1h' } });
  assert.equal(
    errorOf(() => checkTopicTimestamps(filters('topic1=1&timestamp=gte:0&timestamp=lte:3600'), custom)),
    `${prefix}Timestamp range by the lower and upper bounds must be positive and within 1h`,
  );
  assert.equal(errorOf(() => checkTopicTimestamps(filters('topic1=1&timestamp=gte:0&timestamp=lt:3600'), custom)), undefined);
  // without topics no range rule applies
  assert.equal(check('timestamp=gte:1&timestamp=lte:99999999'), undefined);
  assert.equal(check('timestamp=gte:200&timestamp=lte:100'), undefined);
});

test('bound parsing: one eq, one lower, one upper per key, no ne; the first violation wins', () => {
  assert.equal(check('timestamp=ne:1639010141.000000000'), 'Not equal (ne) operator is not supported for timestamp');
  assert.equal(check('timestamp=5&index=ne:1'), 'Not equal (ne) operator is not supported for index');
  assert.equal(check('timestamp=1&timestamp=2'), 'Only one equal (eq) operator is allowed for timestamp');
  assert.equal(check('timestamp=gt:1&timestamp=gte:2'), 'Only one gt/gte operator is allowed for timestamp');
  assert.equal(check('timestamp=lt:1&timestamp=lte:2'), 'Only one lt/lte operator is allowed for timestamp');
  assert.equal(check('timestamp=1&index=1&index=2'), 'Only one equal (eq) operator is allowed for index');
  assert.equal(check('timestamp=gte:1&index=gt:1&index=gte:2'), 'Only one gt/gte operator is allowed for index');
  assert.equal(check('timestamp=lte:1&index=lt:1&index=lte:2'), 'Only one lt/lte operator is allowed for index');
  // filter order decides which violation is reported
  assert.equal(check('index=ne:1&timestamp=ne:1'), 'Not equal (ne) operator is not supported for index');
  assert.equal(check('timestamp=ne:1&index=ne:1'), 'Not equal (ne) operator is not supported for timestamp');
});

test('bound validation: every message in the reference order', () => {
  assert.equal(check('index=2'), 'timestamp must have eq operator');
  assert.equal(check('index=2&timestamp=gte:1'), 'timestamp must have eq operator');
  assert.equal(check('timestamp=1&timestamp=gt:0'), "Can't support both range and equal for timestamp");
  assert.equal(check('timestamp=1&index=1&index=gt:0'), "Can't support both range and equal for index");
  assert.equal(check('index=1&timestamp=1&timestamp=lt:9&index=lt:3'), "Can't support both range and equal for timestamp");
  assert.equal(check('index=gte:2&index=lte:7'), 'index without a timestamp parameter filter');
  assert.equal(check('index=gt:0&timestamp=lt:1639010151.000000000'), 'timestamp must have gte or eq operator');
  assert.equal(check('index=gte:0&timestamp=lte:1639010151'), 'timestamp must have gte or eq operator');
  assert.equal(check('index=gt:0&timestamp=gt:1'), 'timestamp must have gte or eq operator');
  assert.equal(check('index=lt:0&timestamp=gt:1639010151'), 'timestamp must have lte or eq operator');
  assert.equal(check('index=lte:0&timestamp=gte:1639010151'), 'timestamp must have lte or eq operator');
  assert.equal(check('index=lt:0&timestamp=lt:1'), 'timestamp must have lte or eq operator');
  assert.equal(check('index=0&timestamp=gt:1639010151'), 'timestamp must have eq operator');
  for (const ok of [
    'timestamp=1&index=1',
    'timestamp=1&index=gt:1&index=lt:5',
    'timestamp=gte:1&index=gt:1',
    'timestamp=lte:1&index=lt:1',
    'timestamp=gte:1&timestamp=lte:9&index=gte:1&index=lte:2',
    'timestamp=gt:1&timestamp=lte:9&index=lt:1',
    'timestamp=gte:1&timestamp=lt:9&index=gt:1',
    'timestamp=gt:1',
    '',
  ]) {
    assert.equal(check(ok), undefined, ok);
  }
});

/** A box as its inclusive bounds: from/to on the timestamp, indexFrom/indexTo on the index. */
function flat(box: Box): Record<string, bigint | number> {
  const out: Record<string, bigint | number> = {};
  if (box.timestamp.lower) out.from = box.timestamp.lower.value;
  if (box.timestamp.upper) out.to = box.timestamp.upper.value;
  if (box.index.lower) out.indexFrom = Number(box.index.lower.value);
  if (box.index.upper) out.indexTo = Number(box.index.upper.value);
  for (const r of [box.timestamp, box.index]) assert.ok(!r.lower || r.lower.inclusive, 'bounds of integers are inclusive');
  return out;
}

function boxes(search: string) {
  const collapsed = collapseTimestamps(filters(search));
  const bounds: LogFilters = parseLogFilters(collapsed);
  validateLogFilters(bounds);
  return queryBoxes(bounds).map(flat);
}

const S = 1_000_000_000n;

test('query parts: the index bounds apply at the boundary timestamps only', () => {
  assert.deepEqual(boxes(''), [{}]);
  assert.deepEqual(boxes('timestamp=gt:1&timestamp=lt:3'), [{ from: S + 1n, to: 3n * S - 1n }]);
  assert.deepEqual(boxes('timestamp=2&index=gt:0'), [{ from: 2n * S, to: 2n * S, indexFrom: 1 }]);
  assert.deepEqual(boxes('timestamp=2&index=3'), [{ from: 2n * S, to: 2n * S, indexFrom: 3, indexTo: 3 }]);
  // (A, I) < (ts, idx) <= B
  assert.deepEqual(boxes('timestamp=gte:1&timestamp=lte:3&index=gt:4'), [
    { from: S, to: S, indexFrom: 5 },
    { from: S + 1n, to: 3n * S },
  ]);
  // (A, I) < (ts, idx) < (B, J)
  assert.deepEqual(boxes('timestamp=gte:1&timestamp=lte:3&index=gt:4&index=lt:2'), [
    { from: S, to: S, indexFrom: 5 },
    { from: S + 1n, to: 3n * S - 1n },
    { from: 3n * S, to: 3n * S, indexTo: 1 },
  ]);
  // (ts, idx) <= (B, J), no lower bound
  assert.deepEqual(boxes('timestamp=lte:3&index=lte:2'), [{ to: 3n * S - 1n }, { from: 3n * S, to: 3n * S, indexTo: 2 }]);
  // crossed bounds (no topic, so no range rule): the reference unions the two boundary slices
  assert.deepEqual(boxes('timestamp=gte:3&timestamp=lte:1&index=gt:0&index=lt:5'), [
    { from: 3n * S, to: 3n * S, indexFrom: 1 },
    { from: S, to: S, indexTo: 4 },
  ]);
  assert.deepEqual(boxes('timestamp=gte:3&timestamp=lt:1&index=gt:0'), [{ from: 3n * S, to: 3n * S, indexFrom: 1 }]);
  // bounds past the column ranges empty a part instead of overflowing
  assert.deepEqual(boxes('timestamp=gt:9223372036.854775807'), []);
  assert.deepEqual(boxes('timestamp=1&index=gt:2147483647'), []);
  assert.deepEqual(boxes('timestamp=lt:0'), [{ to: -1n }]);
});
