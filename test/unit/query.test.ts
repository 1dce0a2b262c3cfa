import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientError } from '../../src/http/errors.ts';
import { anyOperator, buildFilters, effectiveLimit, limitRule, orderRule } from '../../src/http/filters.ts';
import { parseQuery } from '../../src/http/query.ts';
import { timestampRule } from '../../src/contracts/shared/rules.ts';

test('keys are lower-cased and merged in order of appearance; order values lower-cased', () => {
  const q = parseQuery('Limit=1&limit=2&ORDER=ASC&timestamp[]=lt:5&x');
  assert.deepEqual([...q.entries()], [['limit', ['1', '2']], ['order', 'asc'], ['timestamp', ['lt:5']], ['x', '']]);
});

const rules = new Map([['timestamp', timestampRule], ['limit', limitRule], ['order', orderRule], ['any', anyOperator]]);
const messages = (search: string, max = 100) => {
  try {
    buildFilters(parseQuery(search), rules, max);
    return [];
  } catch (err) {
    assert.ok(err instanceof ClientError);
    assert.equal(err.status, 400);
    return err.messages;
  }
};

test('validation messages come in the reference order: counts, invalid values, unknown keys', () => {
  assert.deepEqual(messages('foo=1&foo=2&bar=3&timestamp=x'), [
    'Invalid parameter: timestamp',
    'Unknown query parameter: foo',
    'Unknown query parameter: foo',
    'Unknown query parameter: bar',
  ]);
  assert.deepEqual(messages('timestamp=a&timestamp=el:10&timestamp=-1'), Array(3).fill('Invalid parameter: timestamp'));
  assert.deepEqual(messages('limit=1&limit=2&limit=3&foo=1', 2), [
    'Parameter values count exceeds maximum number allowed: limit count: 3 max: 2',
    'Unknown query parameter: foo',
  ]);
});

test('operators and values', () => {
  assert.deepEqual(messages('timestamp=gt:1:2&timestamp=ne:1.5&limit=ne:00002&order=lt:asc'), []);
  assert.deepEqual(messages('timestamp=1:2:3'), ['Invalid parameter: timestamp']);
  assert.deepEqual(messages('limit=0'), ['Invalid parameter: limit']);
  assert.deepEqual(messages('limit=9223372036854775808'), ['Invalid parameter: limit']);
  assert.deepEqual(messages('timestamp=9999999999.999999999'), ['Invalid parameter: timestamp']);
  assert.deepEqual(messages('timestamp=9223372036.854775807'), []);
});

test('bracket objects are a 400, never a 500', () => {
  assert.deepEqual(messages('timestamp[gt]=1&foo[a]=1'), ['Invalid parameter: timestamp', 'Unknown query parameter: foo']);
});

test('limit is capped, last value wins', () => {
  const filters = buildFilters(parseQuery('limit=1&limit=300'), rules, 100);
  assert.equal(effectiveLimit(filters, 25, 100), 100);
  assert.equal(effectiveLimit([], 25, 100), 25);
});

test('plain keys repeat without limit; bracket keys follow qs', () => {
  const many = Array.from({ length: 150 }, (_, i) => `timestamp=${i}`).join('&');
  const q = parseQuery(many);
  assert.equal((q.get('timestamp') as string[]).length, 150);
  assert.deepEqual(messages(many), ['Parameter values count exceeds maximum number allowed: timestamp count: 150 max: 100']);
  assert.deepEqual(parseQuery('a[]=1&a[]=2&a=3').get('a'), ['1', '2', '3']);
  assert.deepEqual(parseQuery('a[0]=x').get('a'), ['x']);
  assert.equal(typeof parseQuery('a[21]=x').get('a'), 'object');
  assert.ok(!Array.isArray(parseQuery('a[21]=x').get('a')));
  assert.deepEqual([...parseQuery('toString=1&hasOwnProperty=2&=5&x=%zz&y=a+b&z').entries()], [['x', '%zz'], ['y', 'a b'], ['z', '']]);
  const pairs = Array.from({ length: 1005 }, (_, i) => `k${i}=1`).join('&');
  assert.equal(parseQuery(pairs).size, 1000);
});
