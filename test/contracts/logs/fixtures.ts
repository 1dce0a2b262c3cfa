/** Generated contract logs, record files and entities for the logs endpoint's database tests. */
import type { Db } from '../../../src/db/db.ts';
import { random } from '../../../bench/lib/random.ts';

export const BASE_TS = 1_700_000_000_000_000_000n;
/** Consecutive log timestamps are this far apart (ns). */
export const STEP = 500_000_000n;
export const TIMESTAMPS = 120;
/** Contract 1001 has an EVM address; 1002 and 1003 have no entity row. */
export const CONTRACTS = [1001n, 1002n, 1003n];
export const EVM_1001 = '71b5b8eb76a8c32aee9ccd93ecd2f03e1f3c7d6a';
export const TOPICS = ['ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', '8c5be1e5', '0a', '00'];

export interface FixtureLog {
  ts: bigint;
  index: number;
  contract: bigint;
  topic0: string | null;
  topic1: string | null;
  topic2: string | null;
  topic3: string | null;
}

export interface FixtureBlock {
  start: bigint;
  end: bigint;
  index: number;
  hash: string;
}

export function generate(seed = 7): { logs: FixtureLog[]; blocks: FixtureBlock[] } {
  const next = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const logs: FixtureLog[] = [];
  for (let i = 0; i < TIMESTAMPS; i++) {
    const ts = BASE_TS + BigInt(i) * STEP;
    const count = 1 + Math.floor(next() * 4);
    // logs of one transaction share the timestamp; most belong to one contract, some to others
    const main = pick(CONTRACTS);
    for (let index = 0; index < count; index++) {
      logs.push({
        ts,
        index,
        contract: next() < 0.8 ? main : pick(CONTRACTS),
        topic0: next() < 0.1 ? null : pick(TOPICS),
        topic1: next() < 0.5 ? null : pick(TOPICS),
        topic2: next() < 0.6 ? null : pick(TOPICS),
        topic3: next() < 0.7 ? null : pick(TOPICS),
      });
    }
  }
  // blocks of 2 s covering 4 log timestamps each, with one gap (no record file) of 2 blocks
  const blocks: FixtureBlock[] = [];
  for (let b = 0; b < TIMESTAMPS / 4; b++) {
    if (b === 7 || b === 8) continue;
    const start = BASE_TS + BigInt(b) * 4n * STEP;
    blocks.push({ start, end: start + 4n * STEP - 1n, index: 500 + b, hash: `${b.toString(16).padStart(2, '0')}${'ab'.repeat(47)}` });
  }
  return { logs, blocks };
}

const hexOrNull = (h: string | null) => (h === null ? null : Buffer.from(h, 'hex'));

export async function insertFixtures(db: Db, data = generate()): Promise<void> {
  await db.query(
    `insert into entity (id, num, realm, shard, type, timestamp_range, memo, evm_address, deleted)
     values (1001, 1001, 0, 0, 'CONTRACT', '[1,)', '', $1, false)`,
    [Buffer.from(EVM_1001, 'hex')],
  );
  for (const log of data.logs) {
    await db.query(
      `insert into contract_log (bloom, consensus_timestamp, contract_id, data, index, topic0, topic1, topic2, topic3,
         payer_account_id, root_contract_id, transaction_hash, transaction_index)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 5000, $10, $11, $12)`,
      [
        Buffer.from('ff', 'hex'),
        log.ts.toString(),
        log.contract.toString(),
        Buffer.from(`${log.index.toString(16).padStart(2, '0')}`, 'hex'),
        log.index,
        hexOrNull(log.topic0),
        hexOrNull(log.topic1),
        hexOrNull(log.topic2),
        hexOrNull(log.topic3),
        log.index % 2 === 0 ? '1001' : null,
        Buffer.from('abcd', 'hex'),
        log.index % 3 === 0 ? null : 7,
      ],
    );
  }
  for (const block of data.blocks) {
    await db.query(
      `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
         digest_algorithm, version, file_hash, index, node_id)
       values ($1, 0, 0, $2, '', $3, $4, 1, 0, 6, '', $5, 3)`,
      [`f${block.index}.rcd`, block.hash, block.start.toString(), block.end.toString(), block.index],
    );
  }
}

/** The record file a timestamp lies in, if any. */
export function blockOf(blocks: readonly FixtureBlock[], ts: bigint): FixtureBlock | undefined {
  return blocks.find((b) => b.start <= ts && ts <= b.end);
}

/** ns -> "seconds.nanos" */
