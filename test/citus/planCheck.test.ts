/**
 * The conformance suite and the plan check on real Citus (issue 30), in one replay: every answer the
 * ten routes give while the conformance specs replay on the v2 layout on a Citus cluster (backend
 * postgres-citus, TEST_CITUS_URL) is compared with its spec, and every statement they send is
 * EXPLAINed on the coordinator with its values and classified (citusPlan.ts): local, routed to one
 * shard, fanned out to N shards, or with distributed subplans. It fails on a statement Citus refuses,
 * on distributed subplans, and on a fan-out over every shard of a table unless the statement is one
 * of the fan-outs below, each explained in docs/scaling.md ("Citus (v2 layout)"). A fan-out over only
 * the shards that its values name (`id = any(...)`) passes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dbLayout } from '../../src/db/layout.ts';
import { openTestDatabase } from '../support/database.ts';
import { citusUrl } from '../support/citus.ts';
import { SPECS, captureStatements } from '../v2/capture.ts';
import { type Routing, describeRouting, everyShard, routingOf, tablesOf } from './citusPlan.ts';

/** A contract named by its distribution key: a statement with one must never reach every shard. */
const NAMES_A_CONTRACT = /\b(?:\w+\.)?(?:contract_id|entity_id) = (?:\$\d+|any\(\$\d+)/;

/**
 * Fan-outs over every shard that no statement can avoid (docs/scaling.md lists each): the key the
 * request gives is not a distribution column, or the request asks for every contract.
 */
const EVERY_SHARD: ReadonlyArray<{ name: string; statement: RegExp; why: string }> = [
  { name: 'evm-address', statement: /\bevm_address = \$\d+|\balias = \$\d+/, why: 'an entity by EVM address or alias: not the distribution key (id)' },
  { name: 'contracts-listing', statement: /from entity e left join contract c on c\.id = e\.id\s+where e\.type = 'CONTRACT'/, why: 'GET /contracts: every contract' },
  { name: 'network-results', statement: /from contract_result\b/, why: 'GET /contracts/results: every contract\'s results' },
  { name: 'network-logs', statement: /from contract_log cl\b/, why: 'GET /contracts/results/logs: every contract\'s logs' },
  { name: 'first-transaction', statement: /from transaction order by consensus_timestamp limit 1/, why: 'the network\'s first transaction' },
];

/** A call whose contract_transaction.contract_ids is empty (old rows): every contract's changes at its time, plus the path's. */
const OLD_CALL_STATE_CHANGES = /where csc\.consensus_timestamp = \$\d+ and \(csc\.contract_id = \$\d+ or csc\.migration is false\)/;

function allowedEverywhere(text: string): string | undefined {
  if (OLD_CALL_STATE_CHANGES.test(text)) return 'old-call';
  if (NAMES_A_CONTRACT.test(text)) return undefined;
  return EVERY_SHARD.find((e) => e.statement.test(text))?.name;
}

const url = citusUrl();

test('conformance and plan check on Citus: every spec answered as the reference; every statement routed, or fanned out only where it must', {
  skip: url && SPECS.length > 0 ? false : 'needs TEST_CITUS_URL (a Citus coordinator; .ci/run starts one) and the conformance specs',
  timeout: 1_800_000,
}, async () => {
  const database = await openTestDatabase('postgres-citus');
  try {
    const db = database.db;
    assert.deepEqual({ schema: dbLayout(db)?.schema, citus: dbLayout(db)?.citus }, { schema: 'v2', citus: true });
    const shardCounts = new Map<string, number>();
    for (const row of await db.query<{ t: string; shards: number }>(
      `select table_name::text as t, shard_count::int as shards from citus_tables where citus_table_type = 'distributed'`,
    )) shardCounts.set(row.t, row.shards);
    assert.ok(shardCounts.get('contract_log') === 16 && shardCounts.get('transaction_hash') === 6, JSON.stringify([...shardCounts]));

    const tally = new Map<string, number>();
    const failures: string[] = [];
    let statements = 0;
    const { conformance } = await captureStatements(db, async ({ text, values, spec }) => {
      statements++;
      const shown = `${text.replace(/\s+/g, ' ').slice(0, 500)}\n      values ${JSON.stringify(values, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)).slice(0, 200)} (${spec})`;
      let routing: Routing;
      try {
        const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${text}`, values);
        routing = routingOf(row!['QUERY PLAN']);
      } catch (err) {
        failures.push(`refused by Citus: ${(err as Error).message}\n    in ${shown}`);
        return;
      }
      const tables = tablesOf(text, shardCounts);
      const every = everyShard(routing, tables, shardCounts);
      const label = every ? `${describeRouting(routing)} (every shard)` : describeRouting(routing);
      tally.set(label, (tally.get(label) ?? 0) + 1);
      if (routing.kind === 'recursive') failures.push(`${label}\n    in ${shown}`);
      else if (every && allowedEverywhere(text) === undefined) failures.push(`${label} of ${tables.join(', ')}\n    in ${shown}`);
    });
    process.stdout.write(`# conformance on Citus: ${conformance.passed} passed, ${conformance.failures.length} failed\n`);
    process.stdout.write(`# plan check on Citus: ${statements} statements: ${[...tally].map(([k, n]) => `${n} ${k}`).join('; ')}\n`);
    assert.deepEqual(conformance.failures, [], `${conformance.failures.length} cases answered otherwise than their spec on Citus`);
    assert.ok(conformance.passed > 600, `only ${conformance.passed} cases were replayed`);
    assert.ok(statements > 100, `only ${statements} statements were checked`);
    const unique = [...new Set(failures)];
    assert.deepEqual(unique, [], `${unique.length} statements are refused by Citus or fan out where fewer shards would do:\n  ${unique.join('\n  ')}`);
  } finally {
    await database.close();
  }
});
