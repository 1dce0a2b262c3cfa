/** Counts by client: a key counted down to zero is forgotten, and never goes below zero. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counts } from '../../../../src/http/server/load/counts.ts';

test('counts by key: up and down, a key at zero forgotten, never below zero', () => {
  const counts = new Counts();
  assert.equal(counts.of('127.0.0.2'), 0);
  counts.add('127.0.0.2');
  counts.add('127.0.0.2');
  counts.add('::1');
  assert.deepEqual([counts.of('127.0.0.2'), counts.of('::1'), counts.size], [2, 1, 2]);
  counts.remove('127.0.0.2');
  counts.remove('::1');
  assert.deepEqual([counts.of('127.0.0.2'), counts.of('::1'), counts.size], [1, 0, 1]);
  counts.remove('::1'); // one release too many: still 0, nothing kept
  counts.remove('127.0.0.2');
  assert.deepEqual([counts.of('127.0.0.2'), counts.of('::1'), counts.size], [0, 0, 0]);
  counts.add('127.0.0.3');
  counts.clear();
  assert.deepEqual([counts.of('127.0.0.3'), counts.size], [0, 0]);
});
