import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientError } from '../../../src/http/request/errors.ts';
import { paging } from '../../../src/http/request/listing.ts';
import { checkKeys, parseFilters as buildFilters, refuseTimestampsBeyondInt64 } from '../../../src/http/request/filters.ts';
import { parseQuery } from '../../../src/http/request/query.ts';
import { rawPath, rawSearch } from '../../../src/http/request/target.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { LIMIT_RULE as limitRule, ORDER_RULE as orderRule, TIMESTAMP_SYNTAX_RULE as timestampRule, anyValue as anyOperator, eqOnly } from '../../../src/http/request/rules.ts';

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
  // beyond int64: the syntax is valid, as the reference validates it; the contract's routes refuse it later
  assert.deepEqual(messages('timestamp=9999999999.999999999'), []);
  assert.throws(() => refuseTimestampsBeyondInt64([{ key: 'timestamp', operator: 'lte', value: '9999999999.999999999' }]), /timestamp/);
  refuseTimestampsBeyondInt64([{ key: 'timestamp', operator: 'lte', value: '9223372036.854775807' }]);
  assert.deepEqual(messages('timestamp=9223372036.854775807'), []);
});

test('bracket objects are a 400, never a 500', () => {
  assert.deepEqual(messages('timestamp[gt]=1&foo[a]=1'), ['Invalid parameter: timestamp', 'Unknown query parameter: foo']);
});

test('limit is capped, last value wins; order defaults per route', () => {
  const config = loadConfig({}, '/nonexistent');
  const filters = buildFilters(parseQuery('limit=1&limit=300&order=desc&order=asc'), rules, 100);
  assert.deepEqual(paging(filters, config, 'desc'), { limit: 100, order: 'asc' });
  assert.deepEqual(paging([], config, 'asc'), { limit: 25, order: 'asc' });
  assert.deepEqual(paging(buildFilters(parseQuery('limit=00002'), rules, 100), config, 'desc'), { limit: 2, order: 'desc' });
});

test('key style: one message per unknown key, values with more than one colon invalid, key order kept', () => {
  const keyRules = new Map([['nonce', eqOnly((v) => /^\d{1,10}$/.test(v))]]);
  const keyMessages = (search: string, max = 100) => {
    try {
      return checkKeys(parseQuery(search), keyRules, max).map((f) => f.value);
    } catch (err) {
      assert.ok(err instanceof ClientError);
      return err.messages;
    }
  };
  assert.deepEqual(keyMessages('foo=1&foo=2&nonce=x&bar=1&nonce=1:2'), [
    'Unknown query parameter: foo',
    'Invalid parameter: nonce',
    'Invalid parameter: nonce',
    'Unknown query parameter: bar',
  ]);
  assert.deepEqual(keyMessages('nonce=eq:3&nonce=4'), ['3', '4']);
  assert.deepEqual(keyMessages('nonce=1&nonce=2&nonce=3&foo=1&foo=2&foo=3', 2), [
    'Parameter values count exceeds maximum number allowed: nonce count: 3 max: 2',
    'Unknown query parameter: foo',
  ]);
  assert.deepEqual(keyMessages('timestamp[gt]=1&nonce[gt]=1'), ['Unknown query parameter: timestamp', 'Invalid parameter: nonce']);
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

test('values come in the order qs gathers them: by key as written, in order of first appearance', () => {
  // expected values read off qs 6.14.0, the reference's version, then the reference's case merge
  assert.deepEqual(parseQuery('timestamp=A&timestamp[]=B&timestamp=A').get('timestamp'), ['A', 'A', 'B']);
  assert.deepEqual(parseQuery('timestamp[]=B&timestamp=A&timestamp[]=C').get('timestamp'), ['B', 'C', 'A']);
  assert.deepEqual(parseQuery('Timestamp=A&timestamp=B&Timestamp=C').get('timestamp'), ['A', 'C', 'B']);
  assert.deepEqual(parseQuery('timestamp[0]=A&timestamp=B&timestamp[1]=C').get('timestamp'), ['A', 'B', 'C']);
  assert.deepEqual(parseQuery('a[]=1&a[]=2&a=3&a[]=4').get('a'), ['1', '2', '4', '3']);
  assert.deepEqual(parseQuery('LIMIT=1&order=asc&limit=2').get('limit'), ['1', '2']);
  // a bracket key merges into the key exactly as written, in its place, before keys of another case
  assert.deepEqual(parseQuery('id=1&Id=2&id[]=3&id=4').get('id'), ['1', '4', '3', '2']);
  assert.deepEqual(parseQuery('a=1&A[]=2&a[]=3').get('a'), ['1', '3', '2']);
  assert.deepEqual(parseQuery('a[]=x&a=').get('a'), ['x']);
  assert.deepEqual(parseQuery('a=2&a[x]=1').get('a'), ['2', { x: '1' }]);
  assert.deepEqual(parseQuery('a[0][x]=1&a[]=2&a[0][y]=3').get('a'), [{ x: '1', y: '3' }, '2']);
  // plain objects list integer keys first
  assert.deepEqual([...parseQuery('b=1&10=x&2=y&a=z').keys()], ['2', '10', 'b', 'a']);
});

test('order and result values: a string, or each string of an array, lower-cased; nothing deeper', () => {
  assert.deepEqual(parseQuery('order=DESC&Order=ASC').get('order'), ['desc', 'asc']);
  assert.deepEqual(parseQuery('Order[0][]=A').get('order'), [['A']]);
});

test('a URL with a fragment or other characters that make Express use url.parse: read as the reference reads it', () => {
  assert.equal(rawSearch('/api/v1/contracts?limit=1#x'), 'limit=1');
  assert.equal(rawPath('/api/v1/contracts?limit=1#x'), '/api/v1/contracts');
  // a fragment before the query holds it
  assert.equal(rawSearch('/api/v1/contracts#x?limit=1'), '');
  assert.equal(rawPath('/api/v1/contracts#x?limit=1'), '/api/v1/contracts');
  // then a few characters are escaped, as url.parse does
  assert.equal(rawSearch('/api/v1/contracts?a={|}#'), 'a=%7B%7C%7D');
  // without such a character: split at the first "?", nothing escaped
  assert.equal(rawSearch('/api/v1/contracts?a={|}'), 'a={|}');
  assert.equal(rawPath('/api/v1/contracts/0.0.1?x?y'), '/api/v1/contracts/0.0.1');
});
