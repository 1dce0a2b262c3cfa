import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextLink } from '../../../src/http/request/links.ts';
import { parseQuery } from '../../../src/http/request/query.ts';

const link = (search: string, order: 'asc' | 'desc', last: Array<[string, string, boolean]>, path = '/api/v1/contracts/0.0.5001/results') =>
  nextLink('', path, parseQuery(search), order, last.map(([f, value, inclusive]) => [f, { value, inclusive }] as const));

test('results links follow the reference examples', () => {
  assert.equal(link('limit=2', 'desc', [['timestamp', '887654.000123456', false]]), '/api/v1/contracts/0.0.5001/results?limit=2&timestamp=lt:887654.000123456');
  assert.equal(
    link('limit=2&order=asc&timestamp=gte:1', 'asc', [['timestamp', '787654.000123456', false]]),
    '/api/v1/contracts/0.0.5001/results?limit=2&order=asc&timestamp=gt:787654.000123456',
  );
  assert.equal(link('limit=1&timestamp=gte:1', 'desc', [['timestamp', 'X', false]]), '/api/v1/contracts/0.0.5001/results?limit=1&timestamp=gte:1&timestamp=lt:X');
  assert.equal(link('limit=1&timestamp=lt:A&timestamp=lte:B', 'desc', [['timestamp', 'X', false]]), '/api/v1/contracts/0.0.5001/results?limit=1&timestamp=lt:X');
  assert.equal(link('limit=1&timestamp=T&timestamp=lte:B', 'desc', [['timestamp', 'X', false]]), '/api/v1/contracts/0.0.5001/results?limit=1&timestamp=T&timestamp=lt:X');
  assert.equal(
    link('limit=1&order=asc&timestamp=T1&timestamp=T2', 'asc', [['timestamp', 'T1', false]]),
    '/api/v1/contracts/0.0.5001/results?limit=1&order=asc&timestamp=T1&timestamp=T2',
  );
});

test('logs links follow the reference examples', () => {
  const path = '/api/v1/contracts/1001/results/logs';
  const both = (ts: string, idx: string): Array<[string, string, boolean]> => [['timestamp', ts, true], ['index', idx, false]];
  assert.equal(link('limit=1', 'desc', both('X', '1'), path), `${path}?limit=1&timestamp=lte:X&index=lt:1`);
  assert.equal(link('limit=2&order=ASC', 'asc', both('X', '1'), path), `${path}?limit=2&order=asc&timestamp=gte:X&index=gt:1`);
  assert.equal(link('limit=1&timestamp=T&index=gt:0', 'desc', [['index', '2', false]], path), `${path}?limit=1&timestamp=T&index=gt:0&index=lt:2`);
  assert.equal(
    link('limit=1&timestamp=gte:T&index=gt:0&order=asc', 'asc', both('T', '1'), path),
    `${path}?limit=1&order=asc&timestamp=gte:T&index=gt:1`,
  );
  assert.equal(link('limit=1&timestamp=lte:T&timestamp=gt:1', 'desc', both('T', '2'), path), `${path}?limit=1&timestamp=gt:1&timestamp=lte:T&index=lt:2`);
  assert.equal(
    link('limit=2&order=asc&timestamp=gte:A&timestamp=lte:B&index=gt:0&index=lt:2', 'asc', both('B', '0'), path),
    `${path}?limit=2&order=asc&timestamp=lte:B&timestamp=gte:B&index=lt:2&index=gt:0`,
  );
  assert.equal(link('limit=ne:1&order=gte:ASC', 'asc', both('X', '0'), path), `${path}?limit=ne:1&order=gte:asc&timestamp=gte:X&index=gt:0`);
});

test('a trailing slash is removed and values are not re-encoded', () => {
  assert.equal(
    link('from=0xEEEE&limit=1', 'desc', [['timestamp', 'X', false]], '/api/v1/contracts/0x00000000000000000000000000000000000003E9/results/'),
    '/api/v1/contracts/0x00000000000000000000000000000000000003E9/results?from=0xEEEE&limit=1&timestamp=lt:X',
  );
});
