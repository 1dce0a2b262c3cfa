/**
 * The postgres-citus backend itself. With TEST_CITUS_URL: a test database exists on the coordinator
 * and both workers with the importer's v2 layout made by Citus's own functions (distributed tables of
 * 16 and 6 shards on both workers, a reference table, monthly partitions by nanosecond timestamps),
 * the service detects it as v2 on Citus, and it is gone from every node after close. Without it, where
 * Citus is installed, the cluster helper (test/support/citusCluster.ts): a coordinator and two workers
 * of its own, a database with a distributed table on all three nodes, dropped from all three (building
 * the layout takes minutes, which `.ci/run` spends once with TEST_CITUS_URL). Skipped where neither.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import pg from 'pg';
import { detectLayout, dbLayout } from '../../src/db/layout.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { citusNodes, citusUrl, createCitusScratch } from '../support/citus.ts';
import { type CitusCluster, citusSkipReason, startCitusCluster } from '../support/citusCluster.ts';
import { routingOf } from './citusPlan.ts';

const given = citusUrl();
const skipLayout = given ? false : 'needs TEST_CITUS_URL (the layout takes minutes to build: .ci/run builds it once)';
const skipHelper = given ? 'TEST_CITUS_URL is set: its cluster is tested instead' : citusSkipReason();
let database: TestDatabase;

before(async () => {
  if (given) database = await openTestDatabase('postgres-citus');
});

const databasesOn = async (url: string, name: string): Promise<number> => {
  const nodes = await citusNodes(url);
  let found = 0;
  for (const node of nodes) {
    const client = new pg.Client({ host: node.host, port: node.port, user: new URL(url).username || 'postgres', database: 'postgres' });
    await client.connect();
    found += (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0;
    await client.end();
  }
  return found;
};

test('postgres-citus: the v2 layout on a coordinator and two workers, made by Citus, detected as v2 on Citus', { skip: skipLayout, timeout: 900_000 }, async () => {
  const db = database.db;
  const name = database.label.replace(/^postgres-citus \((.*)\)$/, '$1');
  assert.equal(await databasesOn(citusUrl()!, name), 3, 'the test database is on the coordinator and both workers');
  assert.deepEqual(dbLayout(db), { schema: 'v2', citus: true, partitioned: true, topicIndexes: false });
  assert.deepEqual(await detectLayout(db), dbLayout(db));
  const tables = await db.query<{ t: string; kind: string; column: string; shards: number; colocation: number }>(
    `select table_name::text as t, citus_table_type as kind, distribution_column as column, shard_count::int as shards, colocation_id::int as colocation
       from citus_tables where table_name::text in ('entity', 'contract_result', 'contract_log', 'transaction_hash', 'account_balance_file')
       order by 1`,
  );
  const by = Object.fromEntries(tables.map((t) => [t.t, t]));
  assert.deepEqual([by.contract_log?.kind, by.contract_log?.column, by.contract_log?.shards], ['distributed', 'contract_id', 16]);
  assert.equal(by.contract_log?.colocation, by.entity?.colocation, 'contract_log is co-located with entity');
  assert.equal(by.contract_result?.colocation, by.entity?.colocation);
  assert.deepEqual([by.transaction_hash?.column, by.transaction_hash?.shards], ['distribution_id', 6]);
  assert.equal(by.account_balance_file?.kind, 'reference');
  const [placement] = await db.query<{ workers: number }>(
    `select count(distinct nodeport)::int as workers from citus_shards where table_name = 'contract_log'::regclass`,
  );
  assert.equal(placement!.workers, 2, 'the shards are on both workers');
  // (pg_inherits: Citus 12.1's time_partitions view crashes its backend on this layout's nanos_timestamp partition key)
  const [partitions] = await db.query<{ n: number; first: string }>(
    `select count(*)::int as n, min(inhrelid::regclass::text) filter (where inhrelid::regclass::text like '%_p2%') as first
       from pg_inherits where inhparent = 'contract_log'::regclass`,
  );
  assert.ok(partitions!.n > 80 && partitions!.first === 'contract_log_p2019_09', JSON.stringify(partitions));

  // what the plan check reads: one contract is one task, every contract all 16
  const explain = async (text: string, values: unknown[] = []) =>
    routingOf((await db.query<{ 'QUERY PLAN': unknown }>(`explain (format json) ${text}`, values))[0]!['QUERY PLAN']);
  assert.deepEqual(await explain('select * from contract_log where contract_id = $1 order by consensus_timestamp desc limit 5', ['1001']), { kind: 'router' });
  assert.deepEqual(await explain('select * from contract_log order by consensus_timestamp desc limit 5'), { kind: 'fan-out', tasks: 16 });
  assert.equal((await explain('with p as (select * from contract_log order by consensus_timestamp limit 5) select * from p union all select * from p')).kind, 'recursive');
});

test('postgres-citus: close() drops the test database from every node', { skip: skipLayout, timeout: 300_000 }, async () => {
  const name = database.label.replace(/^postgres-citus \((.*)\)$/, '$1');
  await database.close();
  assert.equal(await databasesOn(citusUrl()!, name), 0);
});

test('a Citus cluster of our own: a coordinator and two workers; a database on all three, dropped from all three, a leftover prepared transaction too', { skip: skipHelper, timeout: 300_000 }, async () => {
  let cluster: CitusCluster | undefined;
  try {
    cluster = await startCitusCluster();
    const nodes = await citusNodes(cluster.url);
    assert.deepEqual(nodes.map((n) => n.port), cluster.ports);
    const scratch = await createCitusScratch(cluster.url, false);
    assert.equal(await databasesOn(cluster.url, scratch.name), 3);
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await client.query("set client_min_messages = warning; create table t (id bigint primary key, v text); select create_distributed_table('t', 'id', shard_count := 4)");
      await client.query("insert into t select g, 'v' || g from generate_series(1, 20) g");
      const { rows } = await client.query<{ workers: number; n: number }>(
        `select (select count(distinct nodeport)::int from citus_shards where table_name = 't'::regclass) as workers, (select count(*)::int from t) as n`,
      );
      assert.deepEqual(rows[0], { workers: 2, n: 20 });
    } finally {
      await client.end();
    }
    // a prepared transaction left on a worker (a distributed transaction cut short between its two
    // phases, before Citus's recovery settles it) does not keep the database from being dropped
    const worker = new pg.Client({ host: nodes[1]!.host, port: nodes[1]!.port, user: 'postgres', database: scratch.name });
    await worker.connect();
    await worker.query("begin; create table leftover (id int); prepare transaction 'cqs_test_leftover'");
    await worker.end();
    await scratch.drop();
    assert.equal(await databasesOn(cluster.url, scratch.name), 0);
  } finally {
    await cluster?.stop();
  }
});
