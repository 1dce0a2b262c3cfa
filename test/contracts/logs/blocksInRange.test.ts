/**
 * withBlocksInRange (src/contracts/logs/blocks.ts): a page's record files read as one range give every
 * log the block withBlocks' probes give it (gaps between files, a file ending past the search's
 * reach, blocks far shorter than the average it was told), and the range is read only when the page
 * is expected to span fewer blocks than it has timestamps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Db } from '../../../src/db/db.ts';
import { withBlocks, withBlocksInRange } from '../../../src/contracts/logs/blocks.ts';
import type { LogRow } from '../../../src/contracts/logs/rows.ts';
import { countingDb } from '../../rpc/support.ts';
import { type TestDatabase, openTestDatabase, testBackends } from '../../support/database.ts';

const SLACK = 10n;

/** Files [start, end]: ten of length 10 from 1000, a gap, then one of length 100 (ending past any search's reach of 10). */
const FILES: [bigint, bigint][] = [
  ...Array.from({ length: 10 }, (_, i): [bigint, bigint] => [1000n + 10n * BigInt(i), 1009n + 10n * BigInt(i)]),
  [1200n, 1299n],
];

async function insertFile(db: Db, index: number, start: bigint, end: bigint): Promise<void> {
  await db.query(
    `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
       digest_algorithm, version, file_hash, index, node_id)
     values ($1, 0, 0, $2, '', $3, $4, 1, 0, 6, '', $5, 3)`,
    [`f${index}.rcd`, index.toString(16).padStart(96, '0'), start.toString(), end.toString(), index],
  );
}

const rowAt = (timestamp: bigint, index = 0): LogRow => ({
  bloom: '',
  contract_id: '1001',
  consensus_timestamp: timestamp.toString(),
  data: '',
  index,
  root_contract_id: null,
  topic0: null,
  topic1: null,
  topic2: null,
  topic3: null,
  transaction_hash: null,
  transaction_index: 0,
  evm_address: null,
  block_consensus_start: null,
  block_consensus_end: null,
  block_number: null,
  block_hash: null,
});

const blocksOf = (rows: LogRow[]) => rows.map((r) => [r.consensus_timestamp, r.block_number, r.block_hash, r.block_consensus_start, r.block_consensus_end]);

for (const backend of testBackends()) {
  describe(`record files of a page read as a range (${backend})`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(backend);
      for (const [i, [start, end]] of FILES.entries()) await insertFile(database.db, i + 1, start, end);
    });
    after(async () => database?.close());

    /** The page's blocks both ways, and the statements withBlocksInRange ran. */
    async function both(timestamps: bigint[], blockNs: bigint) {
      const texts: string[] = [];
      const counted = countingDb(database.db, (text) => texts.push(text));
      const ranged = await withBlocksInRange(counted, timestamps.map((t, i) => rowAt(t, i)), SLACK, blockNs);
      const probed = await withBlocks(database.db, timestamps.map((t, i) => rowAt(t, i)), SLACK);
      return { ranged: blocksOf(ranged), probed: blocksOf(probed), ranges: texts.filter((t) => !t.includes('unnest')).length, probes: texts.filter((t) => t.includes('unnest')).length };
    }

    test('a dense page: one range, the blocks the probes give', async () => {
      const timestamps = [1000n, 1001n, 1001n, 1005n, 1009n, 1010n, 1013n, 1019n, 1020n];
      const { ranged, probed, ranges, probes } = await both(timestamps, 10n);
      assert.deepEqual(ranged, probed);
      assert.deepEqual([ranges, probes], [1, 0]);
      assert.deepEqual(ranged.map((b) => b[1]), ['1', '1', '1', '1', '1', '2', '2', '2', '3']);
    });

    test('a log in a gap and one in a file ending past the reach get no block, as with the probes', async () => {
      const timestamps = [1095n, 1099n, 1150n, 1151n, 1152n, 1153n, 1201n];
      const { ranged, probed, ranges } = await both(timestamps, 20n);
      assert.deepEqual(ranged, probed);
      assert.equal(ranges, 1);
      assert.deepEqual(ranged.map((b) => b[1]), ['10', '10', null, null, null, null, null]);
    });

    test('a sparse page is probed per timestamp', async () => {
      const { ranged, probed, ranges, probes } = await both([1000n, 1095n], 10n);
      assert.deepEqual(ranged, probed);
      assert.deepEqual([ranges, probes], [0, 1]);
    });

    test('blocks far shorter than the average told: the range stops and the page is probed', async () => {
      // told 1000 ns a block, the page expects to span one; it spans ten
      const { ranged, probed, ranges, probes } = await both([1000n, 1035n, 1099n], 1000n);
      assert.deepEqual(ranged, probed);
      assert.deepEqual([ranges, probes], [1, 1]);
      assert.deepEqual(ranged.map((b) => b[1]), ['1', '4', '10']);
    });
  });
}
