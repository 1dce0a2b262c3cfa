/**
 * The plan check (issue 18): every statement the ten routes send while the conformance specs replay
 * on the v2 layout (test/support/v2) is EXPLAINed with its values, and its plan walked with Citus's
 * router rules as far as plain PostgreSQL shows them (planWalk.ts). A statement that fans out over
 * every shard must be one of the expected fan-outs below; a non-co-located join, or record_file or
 * file_data in a statement with a distributed table, fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dbLayout } from '../../src/db/layout.ts';
import { openTestDatabase } from '../support/database.ts';
import { SPECS, captureStatements } from './capture.ts';
import { type Distribution, type PlanProblem, checkPlan } from './planWalk.ts';

/**
 * Fan-outs over every shard that no statement shape can avoid, as in the reference: lookups by EVM
 * address (not the distribution key), the network-wide listings (no contract), the first
 * transaction of the network, and transaction hashes (the hash, not distribution_id, is what the
 * request gives... see docs/scaling.md).
 */
const EXPECTED_FAN_OUTS: Array<{ table: string; statement: RegExp; why: string }> = [
  { table: 'entity', statement: /evm_address = /, why: 'lookup by EVM address' },
  { table: 'entity', statement: /from entity e left join contract c on c\.id = e\.id\s+where e\.type = 'CONTRACT'/, why: 'GET /contracts listing' },
  { table: 'contract', statement: /from entity e left join contract c on c\.id = e\.id\s+where e\.type = 'CONTRACT'/, why: 'GET /contracts listing' },
  { table: 'contract_result', statement: /^/, why: 'GET /contracts/results: network-wide (checked below: no contract_id filter)' },
  { table: 'contract_log', statement: /^/, why: 'GET /contracts/results/logs: network-wide (checked below: no contract_id filter)' },
  { table: 'transaction', statement: /from transaction order by consensus_timestamp limit 1/, why: 'first transaction of the network' },
];

function expected(problem: PlanProblem, text: string): boolean {
  if (problem.kind !== 'fan-out') return false;
  // a listing by contract must never fan out: only the statements without a contract_id filter may
  if ((problem.table === 'contract_result' || problem.table === 'contract_log') && /contract_id = \$/.test(text)) return false;
  return EXPECTED_FAN_OUTS.some((e) => e.table === problem.table && e.statement.test(text));
}

const url = process.env.TEST_DATABASE_URL;

test('plan check: every statement of the ten routes on the v2 layout follows Citus\'s router rules', {
  skip: url && SPECS.length > 0 ? false : 'needs TEST_DATABASE_URL and the conformance specs',
  timeout: 900_000,
}, async () => {
  const database = await openTestDatabase('postgres-v2');
  try {
    const db = database.db;
    assert.equal(dbLayout(db)?.schema, 'v2');
    const dist: Distribution = { tables: new Map(), parents: new Map() };
    for (const row of await db.query<{ t: string; column: string; group: string }>(
      `select logicalrelid::text as t, distribution_column as column, colocation as group from citus_stub.dist where kind = 'hash'`,
    )) dist.tables.set(row.t, { column: row.column, group: row.group });
    for (const row of await db.query<{ child: string; parent: string }>(
      `select c.relname as child, p.relname as parent from pg_inherits i
         join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent`,
    )) dist.parents.set(row.child, row.parent);

    const failures: string[] = [];
    let statements = 0;
    await captureStatements(db, async ({ text, values }) => {
      statements++;
      const [row] = await db.query<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }>(`explain (format json) ${text}`, values);
      for (const problem of checkPlan(row!['QUERY PLAN'][0]!.Plan, dist)) {
        if (!expected(problem, text)) failures.push(`${problem.kind} ${problem.table} (${problem.detail})\n    in ${text.replace(/\s+/g, ' ').slice(0, 400)}`);
      }
    });
    assert.ok(statements > 100, `only ${statements} statements were checked`);
    const unique = [...new Set(failures)];
    assert.deepEqual(unique, [], `${unique.length} statements break Citus's router rules:\n  ${unique.join('\n  ')}`);
  } finally {
    await database.close();
  }
});

test('plan walk: a scan without its distribution key fails; a constant or a co-located join passes', () => {
  const dist: Distribution = {
    tables: new Map([
      ['entity', { column: 'id', group: 'entity' }],
      ['contract', { column: 'id', group: 'entity' }],
      ['file_data', { column: 'entity_id', group: 'entity' }],
      ['transaction_hash', { column: 'distribution_id', group: 'transaction_hash' }],
    ]),
    parents: new Map([['contract_result_p2024_01', 'contract_result']]),
  };
  const scan = (table: string, alias: string, extra: Record<string, unknown> = {}) => ({ 'Node Type': 'Index Scan', 'Relation Name': table, Alias: alias, ...extra });
  assert.deepEqual(checkPlan(scan('entity', 'e', { 'Index Cond': "(id = '2001'::bigint)" }), dist), []);
  assert.deepEqual(checkPlan(scan('entity', 'e', { 'Index Cond': "(id = ANY ('{1,2}'::bigint[]))" }), dist), []);
  assert.equal(checkPlan(scan('entity', 'e', { Filter: "(type = 'CONTRACT'::entity_type)" }), dist)[0]?.kind, 'fan-out');
  // S1 of the review: file_data correlated through c.file_id, which is not contract's key
  const s1 = { 'Node Type': 'Nested Loop', Plans: [scan('entity', 'e', { 'Index Cond': "(id = '5'::bigint)" }), scan('contract', 'c', { 'Index Cond': '(id = e.id)' }),
    { 'Node Type': 'Aggregate', Plans: [scan('file_data', 'f', { 'Index Cond': '(entity_id = c.file_id)' })] }] };
  const problems = checkPlan(s1, dist).map((p) => `${p.kind} ${p.table}`);
  assert.deepEqual(problems, ['fan-out file_data', 'file-data-with-distributed file_data']);
  // S8: entity hash-joined without its key
  const s8 = { 'Node Type': 'Hash Left Join', 'Hash Cond': '(cr.contract_id = e.id)', Plans: [{ 'Node Type': 'Subquery Scan', Alias: 'cr' }, scan('entity', 'e')] };
  assert.equal(checkPlan(s8, dist)[0]?.kind, 'fan-out');
  assert.equal(checkPlan({ 'Node Type': 'Append', Plans: [scan('entity', 'e', { 'Index Cond': "(id = '1'::bigint)" }), scan('transaction_hash', 't', { Filter: "(distribution_id = '3'::smallint)" })] }, dist)[0]?.kind, 'non-co-located');
  assert.equal(checkPlan({ 'Node Type': 'Nested Loop', Plans: [scan('entity', 'e', { 'Index Cond': "(id = '1'::bigint)" }), scan('record_file', 'r')] }, dist)[0]?.kind, 'local-with-distributed');
});
