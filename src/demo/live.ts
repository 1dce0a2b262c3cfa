/**
 * A live demo network: after the demo network is seeded, a new block (record file) every
 * `intervalMs` (2 s), stamped with the current time, as the importer writes one: its calls, their
 * results, logs and transactions, and the record file last, all in one transaction. The calls are
 * the demo's own kinds on its own contracts (a token transfer or approval, a swap on the pair with
 * its Sync and Swap, an NFT transfer), from its users, deterministic from the block number; every
 * block has at least one call with logs. What the logs listings show as live logs
 * (`Accept: text/event-stream`), and what `seed --live` writes into PostgreSQL for tests and the bench.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/db.ts';
import { sql } from '../db/sql.ts';
import { ID, TOPIC, longZero } from './network.ts';

export interface LiveWriter {
  /** Blocks written so far. */
  readonly blocks: number;
  stop(): Promise<void>;
}

const NS = 1_000_000_000n;
/** The HAPI result code of a successful call. */
const SUCCESS = 22;

const digest = (label: string, bytes = 32) => createHash('sha256').update(`cqs-demo-live:${label}`).digest().subarray(0, bytes);
const word = (value: bigint | Buffer) => {
  if (!Buffer.isBuffer(value)) return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
  const out = Buffer.alloc(32);
  value.copy(out, 32 - value.length);
  return out;
};
/** A topic as the importer stores it: leading zero bytes trimmed. */
const stored = (topic: Buffer) => {
  let i = 0;
  while (i < topic.length - 1 && topic[i] === 0) i++;
  return topic.subarray(i);
};

interface Log {
  contractId: number;
  topics: Buffer[];
  data: Buffer;
}

interface Call {
  contractId: number;
  sender: number;
  logs: Log[];
}

/** The calls of block `n` (1 to 4 of them, the first always with logs). */
function callsOf(n: bigint): Call[] {
  const seed = digest(`block:${n}`);
  const count = 1 + (seed[0]! % 4);
  const calls: Call[] = [];
  for (let c = 0; c < count; c++) {
    const r = seed[1 + c]!;
    const user = ID.userBase + 1 + (seed[5 + c]! % 100);
    const other = ID.userBase + 1 + (seed[9 + c]! % 100);
    const amount = BigInt(1 + seed[13 + c]!) * 10n ** 15n;
    const kind = r % 4;
    if (kind === 0) {
      calls.push({ contractId: ID.token, sender: user, logs: [{ contractId: ID.token, topics: [Buffer.from(TOPIC.Transfer, 'hex'), word(longZero(user)), word(longZero(other))], data: word(amount) }] });
    } else if (kind === 1) {
      calls.push({ contractId: ID.token, sender: user, logs: [{ contractId: ID.token, topics: [Buffer.from(TOPIC.Approval, 'hex'), word(longZero(user)), word(longZero(ID.router))], data: word(amount) }] });
    } else if (kind === 2) {
      calls.push({
        contractId: ID.router,
        sender: user,
        logs: [
          { contractId: ID.token, topics: [Buffer.from(TOPIC.Transfer, 'hex'), word(longZero(user)), word(longZero(ID.pair))], data: word(amount) },
          { contractId: ID.pair, topics: [Buffer.from(TOPIC.Sync, 'hex')], data: Buffer.concat([word(amount * 1000n), word(amount * 2000n)]) },
          { contractId: ID.pair, topics: [Buffer.from(TOPIC.Swap, 'hex'), word(longZero(ID.router)), word(longZero(user))], data: Buffer.concat([word(amount), word(0n), word(0n), word(amount * 2n)]) },
        ],
      });
    } else {
      calls.push({ contractId: ID.nft, sender: user, logs: [{ contractId: ID.nft, topics: [Buffer.from(TOPIC.Transfer, 'hex'), word(longZero(user)), word(longZero(other)), word(n % 10_000n)], data: Buffer.alloc(0) }] });
    }
  }
  return calls;
}

/** Writes one block ending at `end` (ns) after the newest record file; returns its number. */
export async function writeBlock(db: Db, end: bigint): Promise<bigint> {
  return db.session(async (s) => {
    await s.exec('begin');
    try {
      const [last] = await s.query<{ index: string; end: string; hash: string }>(
        sql`select index::text, consensus_end::text as end, hash from record_file order by consensus_end desc limit 1 for update`,
      );
      const index = BigInt(last?.index ?? '0') + 1n;
      // the block starts where the last one ended, or 2 s before its end when that is later (a demo network of the past)
      const start = last && BigInt(last.end) + 1n > end - 2n * NS ? BigInt(last.end) + 1n : end - 2n * NS;
      const blockEnd = end > start + 1000n ? end : start + 2n * NS;
      const calls = callsOf(index);
      let t = start + 1000n;
      for (const [c, call] of calls.entries()) {
        const ts = t;
        t += (blockEnd - start) / BigInt(calls.length + 1);
        const hash = digest(`tx:${index}:${c}`);
        const payer = ID.relay1 + (c % 3);
        await s.query(sql`insert into contract_result (consensus_timestamp, contract_id, payer_account_id, sender_id, function_parameters, gas_limit, gas_used, gas_consumed, amount, transaction_hash, transaction_index, transaction_result, transaction_nonce, call_result, bloom)
          values (${ts.toString()}, ${call.contractId}, ${payer}, ${call.sender}, ${digest(`params:${index}:${c}`, 68)}, 300000, 52000, 52000, 0, ${hash}, ${c}, ${SUCCESS}, 0, ${Buffer.alloc(32)}, ${Buffer.alloc(256)})`);
        await s.query(sql`insert into transaction (consensus_timestamp, type, result, payer_account_id, valid_start_ns, entity_id, nonce, scheduled, transaction_hash, index)
          values (${ts.toString()}, 50, ${SUCCESS}, ${payer}, ${(ts - 5n * NS).toString()}, ${call.contractId}, 0, false, ${digest(`hedera:${index}:${c}`, 48)}, ${c})`);
        await s.query(sql`insert into transaction_hash (consensus_timestamp, hash, payer_account_id) values (${ts.toString()}, ${digest(`hedera:${index}:${c}`, 48)}, ${payer})`);
        await s.query(sql`insert into contract_transaction_hash (consensus_timestamp, hash, payer_account_id, entity_id, transaction_result) values (${ts.toString()}, ${hash}, ${payer}, ${call.contractId}, ${SUCCESS})`);
        const involved = [...new Set([call.contractId, ...call.logs.map((l) => l.contractId)])];
        for (const entity of [...involved, payer]) {
          await s.query(sql`insert into contract_transaction (consensus_timestamp, entity_id, contract_ids, payer_account_id) values (${ts.toString()}, ${entity}, ${involved.map(String)}::bigint[], ${payer})`);
        }
        for (const [i, log] of call.logs.entries()) {
          const [topic0, topic1, topic2, topic3] = log.topics.map(stored);
          await s.query(sql`insert into contract_log (consensus_timestamp, index, contract_id, root_contract_id, payer_account_id, bloom, data, topic0, topic1, topic2, topic3, transaction_hash, transaction_index)
            values (${ts.toString()}, ${i}, ${log.contractId}, ${call.contractId}, ${payer}, ${Buffer.alloc(256)}, ${log.data}, ${topic0 ?? null}, ${topic1 ?? null}, ${topic2 ?? null}, ${topic3 ?? null}, ${hash}, ${c})`);
        }
      }
      const fileHash = digest(`file:${index}`, 48).toString('hex');
      await s.query(sql`insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count, digest_algorithm, hapi_version_major, hapi_version_minor, hapi_version_patch, version, file_hash, index, gas_used, node_id, size)
        values (${`${new Date(Number(start / 1_000_000n)).toISOString().replace(/:/g, '_')}.rcd.gz`}, ${Math.floor(Date.now() / 1000)}, ${Math.floor(Date.now() / 1000)}, ${fileHash}, ${last?.hash ?? '0'.repeat(96)},
          ${start.toString()}, ${blockEnd.toString()}, ${calls.length}, 0, 0, 59, 0, 6, ${fileHash}, ${index.toString()}, ${52000 * calls.length}, 3, 4096)`);
      await s.exec('commit');
      return index;
    } catch (err) {
      await s.exec('rollback').catch(() => {});
      throw err;
    }
  });
}

/**
 * Writes a block every `intervalMs`, each ending at the current time, until stopped. A failed block
 * (the database away) is logged through `onError` and the next one tried at the next interval.
 */
export function startLiveWriter(db: Db, intervalMs = 2000, onError: (err: unknown) => void = () => {}, clock: () => bigint = () => BigInt(Date.now()) * 1_000_000n): LiveWriter {
  let blocks = 0;
  let writing: Promise<void> | undefined;
  const timer = setInterval(() => {
    writing ??= writeBlock(db, clock())
      .then(() => void blocks++, onError)
      .finally(() => (writing = undefined));
  }, intervalMs);
  return {
    get blocks() {
      return blocks;
    },
    async stop() {
      clearInterval(timer);
      await writing;
    },
  };
}
