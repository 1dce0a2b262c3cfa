/**
 * The query parser against qs 6.14.0, the reference's version: every case of
 * test/fixtures/qs-6.14.0.json (made by scripts/qs-oracle.mjs from qs 6.14.0 itself) parses to the
 * same keys, in the same order, with the same values.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseQs } from '../../../src/http/request/qsParse.ts';

const { cases } = JSON.parse(readFileSync(new URL('../../fixtures/qs-6.14.0.json', import.meta.url), 'utf8')) as { cases: Array<{ q: string; qs: string }> };

test('every recorded query string parses as qs 6.14.0 parsed it (keys, key order, values)', () => {
  assert.ok(cases.length >= 1000, `${cases.length} cases`);
  const unlike = cases.filter(({ q, qs }) => JSON.stringify(parseQs(q)) !== qs);
  assert.deepEqual(unlike.slice(0, 5), [], `${unlike.length} of ${cases.length} parse differently`);
});

test('the rules where later qs releases differ from 6.14.0', () => {
  // an index up to 20 is an array index, 21 an object member
  assert.deepEqual(parseQs('a[20]=x'), { a: ['x'] });
  assert.deepEqual(parseQs('a[21]=x'), { a: { 21: 'x' } });
  // `a[]` repeats without limit
  const many = Array.from({ length: 30 }, (_, i) => `a[]=${i}`).join('&');
  assert.equal((parseQs(many).a as string[]).length, 30);
  // indexes keep their places until the holes go
  assert.deepEqual(parseQs('a[1]=x&a[0]=y'), { a: ['y', 'x'] });
  // %5B and %5D are brackets before the key is found
  assert.deepEqual(parseQs('limit=5%5D=1'), { 'limit=5]': '1' });
  assert.deepEqual(parseQs('limit%5B%5D%=2'), { limit: ['2'] });
});

test('keys naming Object.prototype members are dropped; empty keys too', () => {
  assert.deepEqual(parseQs('__proto__=1&constructor[]=2&a[toString]=3&=4&b=5'), { b: '5' });
});
