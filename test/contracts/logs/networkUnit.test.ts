/** GET /api/v1/contracts/results/logs: parameters and next-link values, without a database. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientError } from '../../../src/http/request/errors.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { checkTimestampRange, parseNetworkLogsParams, timestampConditions } from '../../../src/contracts/logs/params.ts';
import { linkValues } from '../../../src/contracts/logs/links.ts';
import type { LogView } from '../../../src/contracts/logs/view.ts';
import { testConfig } from '../../support/app.ts';

const config = testConfig();
const parse = (query: string) => parseNetworkLogsParams(parseQuery(query), config);
const messages = (fn: () => unknown): string[] | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ClientError) return err.messages;
    throw err;
  }
  return undefined;
};
const HASH = 'ab'.repeat(48);

test('transaction.hash: eq only, 32 or 48 bytes, one value; decoded in any case', () => {
  assert.deepEqual(parse(`transaction.hash=0x${HASH.toUpperCase()}`).hash, Buffer.from(HASH, 'hex'));
  assert.equal(parse(`transaction.hash=${'cd'.repeat(32)}`).hash?.length, 32);
  for (const value of [`gt:${HASH}`, `0X${HASH}`, 'ab'.repeat(40), `ne:${HASH}`]) {
    assert.deepEqual(messages(() => parse(`transaction.hash=${value}`)), ['Invalid parameter: transaction.hash'], value);
  }
  assert.deepEqual(messages(() => parse(`transaction.hash=${HASH}&transaction.hash=${HASH}`)), ['Only one transaction.hash filter is allowed']);
  // the first error in filter order wins
  assert.deepEqual(messages(() => parse(`timestamp=1&timestamp=2&transaction.hash=${HASH}&transaction.hash=${HASH}`)), [
    'Only one equal (eq) operator is allowed for timestamp',
  ]);
});

test('timestamps: syntax at validation, collapsed gte:X&lte:X, range checks after', () => {
  const collapsed = parse('timestamp=gte:5&timestamp=lte:5&index=1');
  assert.deepEqual(timestampConditions(collapsed.bounds), [{ operator: 'eq', value: 5_000000000n }]);
  const big = parse('timestamp=lt:9999999999');
  const conditions = timestampConditions(big.bounds);
  assert.deepEqual(conditions, [{ operator: 'lt', value: 9999999999_000000000n }]);
  assert.equal(messages(() => checkTimestampRange(conditions, false)), undefined);
  assert.deepEqual(messages(() => checkTimestampRange(conditions, true)), ['Invalid parameter: timestamp']);
  assert.deepEqual(messages(() => checkTimestampRange(timestampConditions(parse('timestamp=gte:9999999999').bounds), false)), ['Invalid parameter: timestamp']);
  assert.deepEqual(messages(() => parse('timestamp=99999999999')), ['Invalid parameter: timestamp']);
});

test('linkValues: the user bounds decide; a cut range supplies the timestamp of a short page', () => {
  const log = (timestamp: string, index: number) => ({ timestamp, index }) as LogView;
  const page = { limit: 2, order: 'desc' as const };
  const { bounds } = parse('limit=2');
  assert.equal(linkValues(bounds, page, [log('1.000000001', 3)], undefined), null);
  assert.deepEqual(linkValues(bounds, page, [log('2.000000000', 0), log('1.000000001', 3)], undefined), [
    ['timestamp', { value: '1.000000001', inclusive: true }],
    ['index', { value: '3', inclusive: false }],
  ]);
  assert.deepEqual(linkValues(bounds, page, [log('1.000000001', 3)], 7_000000005n), [
    ['timestamp', { value: '7.000000005', inclusive: true }],
    ['index', { value: '3', inclusive: false }],
  ]);
  assert.equal(linkValues(bounds, page, [], 7n), null);
  const single = parse('timestamp=5&index=1').bounds;
  assert.equal(linkValues(single, page, [log('5.000000000', 1), log('5.000000000', 1)], undefined), null);
  const eq = parse('timestamp=5').bounds;
  assert.deepEqual(linkValues(eq, page, [log('5.000000000', 2), log('5.000000000', 1)], undefined), [['index', { value: '1', inclusive: false }]]);
});
