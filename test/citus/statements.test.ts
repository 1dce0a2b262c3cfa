/**
 * The Citus-safe statement shapes that real Citus routes to the fewest shards (issue 30; the plan
 * check on a cluster, test/citus/planCheck.test.ts, is what found them): checked on the statement
 * text, so that they hold on every machine, with or without Citus.
 * - one call's result: the contract's address by a join (a correlated subquery over entity made Citus
 *   send the statement to all 16 shards; the join reaches only the involved contracts' shards);
 * - its state changes: `contract_id = <path> or (contract_id = any(<involved>) and migration is false)`
 *   (the same rows as `contract_id = any(<involved + path>) and (contract_id = <path> or migration is
 *   false)`, which Citus cannot prune);
 * - logs: one ordered, limited statement (for every contract Citus pushes the order and the limit
 *   down to each shard), not the page / edge / union CTEs that became five steps on Citus and that
 *   planned a contract's partitions twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { setDbLayout } from '../../src/db/layout.ts';
import { Sql } from '../../src/db/sql.ts';
import { findCallSplit } from '../../src/contracts/call/split.ts';
import { type LogQuery, logsSql } from '../../src/contracts/logs/query.ts';
import type { Box } from '../../src/contracts/logs/params.ts';
import { fakeDb } from '../support/database.ts';

const flat = (text: string) => text.replace(/\s+/g, ' ');

async function callStatements(contractIds: string[], pathContractId: bigint): Promise<string[]> {
  const texts: string[] = [];
  const query = async (statement: Sql | string): Promise<unknown[]> => {
    const text = statement instanceof Sql ? statement.compile().text : statement;
    texts.push(flat(text));
    return /from contract_transaction\b/.test(text) ? [{ payer_account_id: '5001', contract_ids: contractIds }] : [];
  };
  const db = fakeDb(query as Db['query']);
  setDbLayout(db, { schema: 'v2', citus: true, partitioned: true, topicIndexes: false });
  await findCallSplit(db, { timestamp: 1700000001_000000000n, entityId: 1001n, pathContractId });
  return texts;
}

test('a call on Citus: the result\'s address joined, not a correlated subquery', async () => {
  const result = (await callStatements(['1001', '359'], 1001n)).find((t) => /from contract_result cr/.test(t))!;
  assert.match(result, /from contract_result cr left join entity e on e\.id = cr\.contract_id where cr\.consensus_timestamp = \$\d+ and cr\.contract_id = any\(\$\d+::bigint\[\]\) limit 1/);
  assert.doesNotMatch(result, /\(select e\.evm_address from entity e where e\.id = cr\.contract_id\)/);
});

test('a call on Citus: the state changes name the path\'s contract and the involved ones as Citus can prune them', async () => {
  const changes = (texts: string[]) => texts.find((t) => /from contract_state_change csc/.test(t))!;
  assert.match(
    changes(await callStatements(['1001', '359'], 1001n)),
    /where csc\.consensus_timestamp = \$\d+ and \(csc\.contract_id = \$\d+ or \(csc\.contract_id = any\(\$\d+::bigint\[\]\) and csc\.migration is false\)\) order by/,
  );
  // the results listing's form (no path contract): the involved contracts without migration rows
  assert.match(changes(await callStatements(['1001'], 0n)), /where csc\.consensus_timestamp = \$\d+ and csc\.contract_id = any\(\$\d+::bigint\[\]\) and csc\.migration is false order by/);
});

test('logs on Citus: one ordered, limited statement', () => {
  const box = (from: bigint, to: bigint): Box => ({
    timestamp: { ne: [], empty: false, lower: { value: from, inclusive: true }, upper: { value: to, inclusive: true } },
    index: { ne: [], empty: false },
  });
  // page 2 of a listing: two boxes
  const query: LogQuery = { contractId: 0n, boxes: [box(5n, 9n), box(1n, 4n)], topics: new Map(), order: 'desc', limit: 25, closeIntervalNs: 10n };
  const text = flat(logsSql(query, true).compile().text);
  assert.doesNotMatch(text, /\bwith\b|union|page|edge/);
  assert.match(text, /^select .* null::bytea as evm_address from contract_log cl where .* order by cl\.consensus_timestamp desc, cl\.index desc limit \$\d+$/);
  // one contract's logs too, with its address: Citus routes it to the contract's shard, which plans
  // contract_log's partitions once (the page / edge form planned them twice)
  const one = flat(logsSql({ ...query, contractId: 1001n }, true).compile().text);
  assert.doesNotMatch(one, /\bwith\b|union|page|edge/);
  assert.match(one, /^select .*, \(select e\.evm_address from entity e where e\.id = \$\d+\) as evm_address from contract_log cl where cl\.contract_id = \$\d+ and .* order by cl\.consensus_timestamp desc, cl\.index desc limit \$\d+$/);
});
