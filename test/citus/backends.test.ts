/**
 * TEST_BACKENDS, which .ci/run's pass on real Citus uses to run the database tests on postgres-citus
 * alone: it keeps only the backends it names, and a backend it names that is not available is an
 * error (a pass that ran nothing would look green).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onlyBackends } from '../support/database.ts';

test('TEST_BACKENDS unset or empty keeps every available backend', () => {
  assert.deepEqual(onlyBackends(['embedded', 'postgres'], undefined), ['embedded', 'postgres']);
  assert.deepEqual(onlyBackends(['embedded', 'postgres'], ' '), ['embedded', 'postgres']);
});

test('TEST_BACKENDS keeps the backends it names, in their usual order', () => {
  const all = ['embedded', 'postgres', 'postgres-v2', 'postgres-citus'] as const;
  assert.deepEqual(onlyBackends([...all], 'postgres-citus'), ['postgres-citus']);
  assert.deepEqual(onlyBackends([...all], 'postgres-citus, embedded'), ['embedded', 'postgres-citus']);
});

test('TEST_BACKENDS naming a backend that is not available fails', () => {
  assert.throws(() => onlyBackends(['embedded'], 'postgres-citus'), /TEST_BACKENDS names postgres-citus, which is not available here/);
  assert.throws(() => onlyBackends(['embedded', 'postgres'], 'postgres,citus'), /names citus/);
});
