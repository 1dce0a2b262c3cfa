/**
 * The top-level memo of GET /api/v1/contracts/{id}/results (src/contracts/results/topLevel.ts):
 * what a walk learns, when it learns nothing, expiry, and that the statement reading only the known
 * timestamps and the results after them gives the same rows as the plain statement.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../../src/db/db.ts';
import { INT64, emptyRange, narrow } from '../../../src/db/range.ts';
import { type ResultsQuery, findResults } from '../../../src/contracts/results/query.ts';
import { MAX_TIMESTAMPS, TTL_MS, TopLevelMemo } from '../../../src/contracts/results/topLevel.ts';
import { type TestDatabase, openTestDatabase, testBackends } from '../../support/database.ts';

const SPARSE = 2001n;
const DENSE = 2002n;
const SETTLED = 10_000n;

const result = (contract: bigint, ts: bigint, nonce: number, sender: number) =>
  `('\\x01', 100000, ${ts}, ${contract}, 5001, ${sender}, 22, ${nonce}, ${ts % 7n})`;

async function insertResults(db: Db, rows: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db.exec(`insert into contract_result (function_parameters, gas_limit, consensus_timestamp, contract_id,
      payer_account_id, sender_id, transaction_result, transaction_nonce, transaction_index) values ${rows.slice(i, i + 500).join(', ')}`);
  }
}

const recordFile = (end: bigint, index: number) =>
  `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
    digest_algorithm, version, file_hash, index, node_id)
   values ('f${index}', 1, 2, 'h${index}', 'p', ${end - 100n}, ${end}, 1, 0, 6, 'fh', ${index}, 3)`;

const timestampsOf = (rows: Array<{ consensus_timestamp: string | bigint }>) => rows.map((r) => String(r.consensus_timestamp));

for (const backend of testBackends()) {
  describe(`top-level memo (${backend})`, () => {
    let database: TestDatabase;
    let db: Db;

    before(async () => {
      database = await openTestDatabase(backend);
      db = database.db;
      // SPARSE: 300 internal results, 4 top-level ones among them; DENSE: MAX_TIMESTAMPS + 5 top-level ones
      const rows: string[] = [];
      for (let i = 0; i < 300; i++) {
        const ts = 1000n + BigInt(i) * 10n;
        rows.push(result(SPARSE, ts, [30, 31, 150, 299].includes(i) ? 0 : 1 + (i % 3), 6000 + (i % 4)));
      }
      for (let i = 0; i < MAX_TIMESTAMPS + 5; i++) rows.push(result(DENSE, 1001n + BigInt(i) * 5n, 0, 7000));
      await insertResults(db, rows);
    });

    after(() => database?.close());

    test('without a record file nothing is learnt', async () => {
      const memo = new TopLevelMemo(db, Date.now, 100);
      await memo.learn(SPARSE);
      assert.equal(memo.get(SPARSE), undefined);
    });

    test('a walk learns every top-level timestamp up to the newest record file; many is nothing', async () => {
      await db.exec(recordFile(SETTLED, 1));
      const memo = new TopLevelMemo(db, Date.now, 100);
      assert.equal(memo.get(SPARSE), undefined);
      await Promise.all([memo.learn(SPARSE), memo.learn(SPARSE), memo.learn(DENSE), memo.learn(0n)]);
      assert.deepEqual(memo.get(SPARSE), { through: SETTLED, timestamps: [3990n, 2500n, 1310n, 1300n] });
      assert.equal(memo.get(DENSE), undefined);
      assert.equal(memo.get(0n), undefined);
      assert.equal(memo.get(42n), undefined);
      // fewer results than the threshold: the plain walk is short, nothing is kept
      const strict = new TopLevelMemo(db, Date.now, 301);
      await strict.learn(SPARSE);
      assert.equal(strict.get(SPARSE), undefined);
      const exact = new TopLevelMemo(db, Date.now, 300);
      await exact.learn(SPARSE);
      assert.notEqual(exact.get(SPARSE), undefined);
    });

    test('entries expire', async () => {
      let now = 0;
      const memo = new TopLevelMemo(db, () => now, 100);
      await memo.learn(SPARSE);
      assert.notEqual(memo.get(SPARSE), undefined);
      now = TTL_MS - 1;
      assert.notEqual(memo.get(SPARSE), undefined);
      now = TTL_MS;
      assert.equal(memo.get(SPARSE), undefined);
    });

    test('reading the known timestamps and what came after gives the plain statement rows', async () => {
      const memo = new TopLevelMemo(db, Date.now, 100);
      await memo.learn(SPARSE);
      const known = memo.get(SPARSE)!;
      // results after the settled point: not in the set, must still be listed
      await insertResults(db, [result(SPARSE, SETTLED + 5n, 0, 6001), result(SPARSE, SETTLED + 6n, 2, 6001), result(SPARSE, SETTLED + 9n, 0, 6002)]);
      const any = emptyRange<bigint>();
      const shapes: Array<Partial<ResultsQuery>> = [
        {},
        { limit: 2 },
        { limit: 1, order: 'asc' },
        { order: 'asc' },
        { timestamp: narrow(any, 'lt', 3990n, INT64) },
        { timestamp: narrow(narrow(any, 'gte', 1300n, INT64), 'lte', 2500n, INT64), order: 'asc' },
        { timestamp: narrow(any, 'eq', SETTLED + 5n, INT64) },
        { timestamp: narrow(any, 'ne', 2500n, INT64) },
        { sender: narrow(any, 'eq', 6001n, INT64) },
        { sender: narrow(narrow(any, 'eq', 6001n, INT64), 'eq', 6002n, INT64), limit: 3 },
        { sender: narrow(any, 'gt', 6001n, INT64), order: 'asc' },
        { transactionIndexes: [3, 4] },
        { internal: true, limit: 10 },
      ];
      for (const shape of shapes) {
        const query: ResultsQuery = { contractId: SPARSE, timestamp: any, sender: any, transactionIndexes: [], internal: false, order: 'desc', limit: 25, ...shape };
        const plain = await findResults(db, query);
        const withSet = await findResults(db, { ...query, topLevel: known });
        assert.deepEqual(withSet, plain, JSON.stringify(shape, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
        if (!query.internal) assert.ok(plain.every((r) => known.timestamps.includes(BigInt(r.consensus_timestamp)) || BigInt(r.consensus_timestamp) > SETTLED));
      }
      assert.deepEqual(timestampsOf(await findResults(db, { contractId: SPARSE, timestamp: any, sender: any, transactionIndexes: [], internal: false, order: 'desc', limit: 25, topLevel: known })), [
        '10009', '10005', '3990', '2500', '1310', '1300',
      ]);
    });
  });
}
