/** Layout detection, the plan mode following it, and the recommended indexes on v2's partitioned tables. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { citusSafe, dbLayout, describeLayout, detectLayout, layoutOf, planCacheModeFor } from '../../src/db/layout.ts';
import { addRecommendedIndexes } from '../../src/db/migrate.ts';
import { openTestDatabase } from '../support/database.ts';

const row = { ours: false, entity: true, citus: false, partitioned: false, record_file_node_key: false, topic_indexes: false };

test('layouts: v1, v2 (partitioned, or Citus, or record_file keyed by node), this service\'s own, none', () => {
  assert.deepEqual(layoutOf(row), { schema: 'v1', citus: false, partitioned: false, topicIndexes: false });
  assert.equal(layoutOf({ ...row, topic_indexes: true }).topicIndexes, true);
  assert.equal(layoutOf({ ...row, partitioned: true }).schema, 'v2');
  assert.equal(layoutOf({ ...row, record_file_node_key: true }).schema, 'v2');
  assert.equal(layoutOf({ ...row, citus: true }).schema, 'v2');
  assert.equal(layoutOf({ ...row, ours: true }).schema, 'own');
  assert.equal(layoutOf({ ...row, entity: false }).schema, 'none');
});

test('plan mode: generic plans forced on v1 and on our own schema; auto on v2 and on any Citus coordinator', () => {
  assert.equal(planCacheModeFor(layoutOf(row)), 'force_generic_plan');
  assert.equal(planCacheModeFor(layoutOf({ ...row, ours: true })), 'force_generic_plan');
  assert.equal(planCacheModeFor(layoutOf({ ...row, partitioned: true })), 'auto');
  // Citus under this service's own schema (a coordinator migrated by `migrate`): still no forced generic plans
  assert.equal(planCacheModeFor(layoutOf({ ...row, ours: true, citus: true })), 'auto');
  assert.equal(citusSafe(undefined), false);
  assert.match(describeLayout(layoutOf({ ...row, partitioned: true })), /^the importer's v2 \(Citus\) layout, contract_result partitioned, Citus not installed, without the recommended topic indexes$/);
});

const url = process.env.TEST_DATABASE_URL;

test('on PostgreSQL: the v2 stub is detected as v2 and its sessions plan with auto; ours as own with generic plans', { skip: url ? false : 'needs TEST_DATABASE_URL', timeout: 300_000 }, async () => {
  const v2 = await openTestDatabase('postgres-v2');
  const own = await openTestDatabase('postgres');
  try {
    assert.deepEqual(await detectLayout(v2.db), { schema: 'v2', citus: false, partitioned: true, topicIndexes: false });
    assert.deepEqual(dbLayout(v2.db), { schema: 'v2', citus: false, partitioned: true, topicIndexes: false });
    assert.deepEqual(await v2.db.query('show plan_cache_mode'), [{ plan_cache_mode: 'auto' }]);
    // this service's migrations create the recommended indexes, the topic indexes among them
    assert.deepEqual(await detectLayout(own.db), { schema: 'own', citus: false, partitioned: false, topicIndexes: true });
  } finally {
    await v2.close();
    await own.close();
  }
});

test('recommended indexes on v2: on the parent only, each partition concurrently, attached; the parent\'s valid', { skip: url ? false : 'needs TEST_DATABASE_URL', timeout: 600_000 }, async () => {
  const v2 = await openTestDatabase('postgres-v2');
  try {
    const statements = await addRecommendedIndexes(v2.db);
    assert.ok(statements.includes('create index if not exists contract_result__id_timestamp_top_level on only contract_result (contract_id, consensus_timestamp) where transaction_nonce = 0'));
    assert.ok(statements.some((s) => /^create index concurrently if not exists contract_result__id_timestamp_top_level_p2024_01 on contract_result_p2024_01 /.test(s)));
    const check = `select i.indisvalid as valid,
        (select count(*)::int from pg_inherits h where h.inhparent = i.indexrelid) as attached,
        (select count(*)::int from pg_inherits h where h.inhparent = i.indrelid) as partitions
      from pg_index i where i.indexrelid = to_regclass($1)`;
    for (const index of ['contract_result__id_timestamp_top_level', 'contract_log__topic0_timestamp']) {
      const [state] = await v2.db.query<{ valid: boolean; attached: number; partitions: number }>(check, [index]);
      assert.ok(state && state.valid && state.partitions > 80 && state.attached === state.partitions, `${index}: ${JSON.stringify(state)}`);
    }
    assert.equal((await detectLayout(v2.db)).topicIndexes, true, 'the topic indexes are found on the partitioned parent');
    // a second run changes nothing and fails nowhere
    await addRecommendedIndexes(v2.db);
  } finally {
    await v2.close();
  }
});
