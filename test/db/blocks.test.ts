/**
 * The reads of record_file (src/db/blocks.ts): the order is the table's numbers, not their text
 * (block 10 after block 9), and the look-up by hash prefix uses record_file__hash in the generic plan
 * the service's sessions force, without a filter on hash.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../src/db/db.ts';
import { blockByHashPrefix, blockByHashPrefixStatement, blockSearchEnd, blocksAfter, hashPrefixRange, newestBlock } from '../../src/db/blocks.ts';
import { type TestDatabase, openTestDatabase, testBackends } from '../support/database.ts';

const HASH_9 = `${'9'.repeat(64)}${'0'.repeat(32)}`;
const HASH_10 = `${'a'.repeat(63)}f${'1'.repeat(32)}`;

async function insertBlock(db: Db, index: number, end: bigint, hash: string): Promise<void> {
  await db.query(
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, version, file_hash, index, node_id)
     values ($1, 0, 0, $2, '', $3, $3, 1, 0, 6, '', $4, 3)`,
    [`f${index}.rcd`, hash, end.toString(), index],
  );
}

test('hashPrefixRange: the prefix to the prefix with its last digit moved up', () => {
  assert.deepEqual(hashPrefixRange('ab0'), { from: 'ab0', to: 'ab1' });
  assert.deepEqual(hashPrefixRange('ab9'), { from: 'ab9', to: 'aba' });
  assert.deepEqual(hashPrefixRange('abf'), { from: 'abf', to: 'abg' });
});

describe('blockSearchEnd (the bound of a page block search)', () => {
  test('the latest timestamp of the page plus the slack, whatever the order', () => {
    assert.equal(blockSearchEnd(['1700000000000000002', '1700000000000000009', '1700000000000000005'], 10n), '1700000000000000019');
    assert.equal(blockSearchEnd(['99'], 0n), '99');
  });
  test('compared as numbers, not as text', () => {
    assert.equal(blockSearchEnd(['900', '1000'], 1n), '1001');
  });
  test('never past int64, which a consensus_end cannot pass', () => {
    assert.equal(blockSearchEnd(['9223372036854775800'], 100n), '9223372036854775807');
    assert.equal(blockSearchEnd(['9223372036854775807'], 0n), '9223372036854775807');
  });
  test('the slack alone for an empty page', () => {
    assert.equal(blockSearchEnd([], 5n), '5');
  });
});

for (const backend of testBackends()) {
  describe(`record file reads (${backend})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(backend);
      // consensus ends and indexes of different lengths: their text order is not their order
      await insertBlock(database.db, 9, 9n, HASH_9);
      await insertBlock(database.db, 10, 10n, HASH_10);
    });
    after(async () => database?.close());

    test('the newest block is the one with the greatest consensus end', async () => {
      assert.equal((await newestBlock(database.db))?.number, '10');
    });

    test('blocks after a number come in the order of their numbers', async () => {
      assert.deepEqual((await blocksAfter(database.db, 8n, 10)).map((b) => b.number), ['9', '10']);
    });

    test('a block by the first 32 bytes of its hash, a prefix ending in f or 9 included', async () => {
      assert.equal((await blockByHashPrefix(database.db, HASH_10.slice(0, 64)))?.number, '10');
      assert.equal((await blockByHashPrefix(database.db, HASH_9.slice(0, 64)))?.number, '9');
      assert.equal((await blockByHashPrefix(database.db, HASH_9))?.number, '9');
      assert.equal(await blockByHashPrefix(database.db, `${'9'.repeat(63)}8`), undefined);
      // compared as written: the callers lower a hash where their interface ignores case
      assert.equal(await blockByHashPrefix(database.db, HASH_10.slice(0, 64).toUpperCase()), undefined);
    });

    test('the look-up by hash uses the index on hash in a generic plan', async () => {
      const { text, values } = blockByHashPrefixStatement(HASH_10.slice(0, 64)).compile();
      const literals = values.map((v) => `'${String(v).replace(/'/g, "''")}'`).join(', ');
      const plan = await database.db.session(async (session) => {
        await session.query('set plan_cache_mode = force_generic_plan');
        // on a table of two rows a sequential scan is cheapest whatever the statement
        await session.query('set enable_seqscan = off');
        await session.query(`prepare rpc_block_by_hash as ${text}`);
        try {
          const rows = await session.query<{ 'QUERY PLAN': string }>(`explain execute rpc_block_by_hash(${literals})`);
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        } finally {
          await session.query('deallocate rpc_block_by_hash');
          await session.query('reset plan_cache_mode');
          await session.query('reset enable_seqscan');
        }
      });
      // record_file__hash, or on the v2 layout each partition's index on hash
      assert.match(plan, /Index Scan using (record_file__hash|record_file_\w*hash\w*) on/, plan);
      assert.match(plan, /Index Cond: .*hash/, plan);
      assert.doesNotMatch(plan, /Filter: .*hash/, plan);
    });
  });
}
