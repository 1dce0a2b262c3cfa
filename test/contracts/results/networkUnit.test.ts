/** GET /api/v1/contracts/results: the path check, the parameters and the view, without a database. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientError } from '../../../src/http/request/errors.ts';
import { decodedSegment, parseQuery } from '../../../src/http/request/query.ts';
import { rawSegments } from '../../../src/http/request/target.ts';
import { checkResultsSegment, checkTimestampRange, parseNetworkResultsParams } from '../../../src/contracts/results/params.ts';
import { blocksByTimestamp } from '../../../src/contracts/results/view.ts';
import { testConfig } from '../../support/app.ts';

const config = testConfig();
const failure = (fn: () => unknown): [number, string[]] | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ClientError) return [err.status, err.messages];
    throw err;
  }
  return undefined;
};

const checkResultsPath = (path: string) => checkResultsSegment(rawSegments('/api/v1/contracts/results', path).results!);

test('checkResultsSegment: lower-case results passes, an encoded one is 404, any other spelling a contract id (400)', () => {
  assert.equal(failure(() => checkResultsPath('/api/v1/contracts/results')), undefined);
  assert.equal(failure(() => checkResultsPath('/api/v1/CONTRACTS/results/')), undefined);
  assert.deepEqual(failure(() => checkResultsPath('/api/v1/contracts/%72esults')), [404, ['Not found']]);
  assert.deepEqual(failure(() => checkResultsPath('/api/v1/contracts/%72esults/')), [404, ['Not found']]);
  for (const segment of ['RESULTS', 'Results', 'RE%53ULTS', '%52esults']) {
    assert.deepEqual(failure(() => checkResultsPath(`/api/v1/contracts/${segment}`)), [400, ['Invalid parameter: contractid']], segment);
  }
  assert.equal(decodedSegment('%6cogs'), 'logs');
  assert.equal(decodedSegment('%E0%A4%A'), '%E0%A4%A');
});

test('timestamps: the syntax only at validation; a lower bound or eq beyond int64 is 400 afterwards', () => {
  const params = parseNetworkResultsParams(parseQuery('timestamp=lt:9999999999&timestamp=gte:1.5'), config);
  assert.deepEqual(params.timestamps, [
    { operator: 'lt', value: 9999999999_000000000n },
    { operator: 'gte', value: 1_500000000n },
  ]);
  assert.equal(failure(() => checkTimestampRange(params)), undefined);
  for (const query of ['timestamp=gt:9999999999', 'timestamp=9223372036.854775808', 'timestamp=ne:9999999999.999999999']) {
    const p = parseNetworkResultsParams(parseQuery(query), config);
    assert.deepEqual(failure(() => checkTimestampRange(p)), [400, ['Invalid parameter: timestamp']], query);
  }
  assert.deepEqual(failure(() => parseNetworkResultsParams(parseQuery('timestamp=99999999999'), config)), [400, ['Invalid parameter: timestamp']]);
  assert.deepEqual(failure(() => parseNetworkResultsParams(parseQuery('transaction.index=1'), config))?.[0], 400);
});

test('blocksByTimestamp keeps a candidate file only when it starts at or before the timestamp', () => {
  const candidate = (ts: string, start: string) => ({ ts, number: '7', consensus_start: start, consensus_end: '400', hash: 'ab', gas_used: null });
  const blocks = blocksByTimestamp([candidate('100', '100'), candidate('200', '150'), candidate('300', '301')]);
  assert.deepEqual([...blocks.keys()], ['100', '200']);
});
