/** The Citus plan classifier of the plan check, on EXPLAIN (FORMAT JSON) shapes as Citus 12.1 prints them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeRouting, everyShard, routingOf, tablesOf } from './citusPlan.ts';

const citusScan = (tasks: number, subplans: unknown[] = []) => ({
  'Node Type': 'Custom Scan',
  'Custom Plan Provider': 'Citus Adaptive',
  'Distributed Query': { ...(subplans.length ? { Subplans: subplans } : {}), Job: { 'Task Count': tasks, 'Tasks Shown': 'One of N', Tasks: [] } },
});
const explain = (plan: unknown) => [{ Plan: plan }];

test('routing: local, one shard, N shards, distributed subplans', () => {
  assert.deepEqual(routingOf(explain({ 'Node Type': 'Seq Scan', 'Relation Name': 'record_file' })), { kind: 'local' });
  assert.deepEqual(routingOf(explain(citusScan(1))), { kind: 'router' });
  assert.deepEqual(routingOf(explain(citusScan(16))), { kind: 'fan-out', tasks: 16 });
  const recursive = routingOf(explain(citusScan(1, [{ PlannedStmt: [{ Plan: citusScan(16) }] }, { PlannedStmt: [{ Plan: citusScan(1) }] }])));
  assert.deepEqual(recursive, { kind: 'recursive', subplans: 2, tasks: [1, 16, 1] });
  assert.equal(describeRouting(recursive), '2 distributed subplans (tasks 1, 16, 1)');
});

test('every shard: the task count of one of the statement\'s tables; a fan-out pruned by its values is not', () => {
  const shards = new Map([['entity', 16], ['contract_log', 16], ['transaction_hash', 6]]);
  const tables = tablesOf('select * from contract_log cl left join entity e on e.id = cl.contract_id where x', shards);
  assert.deepEqual(tables, ['contract_log', 'entity']);
  assert.equal(everyShard({ kind: 'fan-out', tasks: 16 }, tables, shards), true);
  assert.equal(everyShard({ kind: 'fan-out', tasks: 3 }, tables, shards), false);
  assert.equal(everyShard({ kind: 'fan-out', tasks: 6 }, tablesOf('select 1 from transaction_hash', shards), shards), true);
  assert.equal(everyShard({ kind: 'router' }, tables, shards), false);
});
