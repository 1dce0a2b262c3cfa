/** Generated contract results, record files and entities for the results endpoint's database tests. */
import type { Db } from '../../../src/db/db.ts';
import { random } from '../../../bench/lib/random.ts';

export const BASE_TS = 1_700_000_000_000_000_000n;
/** Consecutive result timestamps are this far apart (ns). */
export const STEP = 250_000_000n;
export const RESULTS = 320;
/** Results per record file; blocks 5 and 6 are missing (a gap without record file). */
export const PER_BLOCK = 10;
export const FIRST_BLOCK = 500;
/** Contract 1001 has an entity with an EVM address, 1002 an entity without, 1003 none. */
export const CONTRACTS = [1001n, 1002n, 1003n];
export const EVM_1001 = '71b5b8eb76a8c32aee9ccd93ecd2f03e1f3c7d6a';
/** Account 2002's EVM address (an opaque `from` address). */
export const EVM_2002 = 'a94f5374fce5edbc8e2a8697c15331677e6ebf0b';
/** An entity whose deleted flag is NULL: not found by `from`. */
export const EVM_NULL_DELETED = 'b94f5374fce5edbc8e2a8697c15331677e6ebf0b';
/** Two live entities share this address. */
export const EVM_SHARED = 'c94f5374fce5edbc8e2a8697c15331677e6ebf0b';
/** The alias recorded in some function_result protobufs (results without sender_id). */
export const ALIAS = '1234567890abcdef1234567890abcdef12345678';
export const SENDERS: Array<bigint | null> = [2001n, 2002n, 2003n, 2002n, 2001n, null, 0n];

export interface FixtureResult {
  ts: bigint;
  contract: bigint;
  nonce: number;
  sender: bigint | null;
  /** Serialized function_result (only meaningful for a NULL sender). */
  functionResult: Buffer | null;
  transactionIndex: number;
  createdIds: bigint[] | null;
  errorMessage: string | null;
}

export interface FixtureBlock {
  start: bigint;
  end: bigint;
  index: number;
  hash: string;
}

/** Protobuf encoding helpers for tests (independent of the service's decoder). */
export function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? byte | 0x80 : byte);
  } while (v > 0n);
  return out;
}
export const lengthDelimited = (field: number, bytes: number[]): number[] => [...varint((field << 3) | 2), ...varint(bytes.length), ...bytes];
export const varintField = (field: number, n: number | bigint): number[] => [...varint(field << 3), ...varint(n)];
export const hexBytes = (hex: string): number[] => [...Buffer.from(hex, 'hex')];

/** ContractFunctionResult{contractID{contractNum}, gasUsed, sender_id{alias or accountNum}}. */
export function functionResult(sender: { alias: string } | { accountNum: number } | undefined): Buffer {
  const account = sender === undefined ? undefined : 'alias' in sender ? lengthDelimited(4, hexBytes(sender.alias)) : varintField(3, sender.accountNum);
  return Buffer.from([
    ...lengthDelimited(1, varintField(3, 1001)),
    ...lengthDelimited(2, [1, 2, 3]),
    ...varintField(5, 21000),
    ...(account === undefined ? [] : lengthDelimited(13, account)),
  ]);
}

export function generate(seed = 11): { results: FixtureResult[]; blocks: FixtureBlock[] } {
  const next = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const results: FixtureResult[] = [];
  for (let i = 0; i < RESULTS; i++) {
    const sender = pick(SENDERS);
    let fr: Buffer | null = null;
    if (sender === null) fr = pick([functionResult({ alias: ALIAS }), functionResult({ accountNum: 5 }), Buffer.from([8, 8]), null]);
    else if (next() < 0.3) fr = functionResult({ alias: ALIAS }); // never read: the sender wins
    results.push({
      ts: BASE_TS + BigInt(i) * STEP + BigInt(Math.floor(next() * 3)),
      contract: next() < 0.6 ? 1001n : pick(CONTRACTS),
      nonce: next() < 0.7 ? 0 : 1 + Math.floor(next() * 3),
      sender,
      functionResult: fr,
      transactionIndex: i % PER_BLOCK,
      createdIds: pick([null, [], [7001n], [7001n, 0n]]),
      errorMessage: pick([null, '', 'CONTRACT_REVERT_EXECUTED']),
    });
  }
  const blocks: FixtureBlock[] = [];
  for (let b = 0; b < RESULTS / PER_BLOCK; b++) {
    if (b === 5 || b === 6) continue;
    const start = BASE_TS + BigInt(b * PER_BLOCK) * STEP;
    blocks.push({
      start,
      end: start + BigInt(PER_BLOCK) * STEP - 1n,
      index: FIRST_BLOCK + b,
      hash: `${b.toString(16).padStart(2, '0')}${'cd'.repeat(47)}`,
    });
  }
  return { results, blocks };
}

/** The entities, results and record files of `data` (the contracts and accounts are always the same). */
export async function insertFixtures(db: Db, data = generate()): Promise<void> {
  const entity = `insert into entity (id, num, realm, shard, type, timestamp_range, memo, evm_address, deleted)
     values ($1, $1, 0, 0, $2, '[1,)', '', $3, $4)`;
  await db.query(entity, ['1001', 'CONTRACT', Buffer.from(EVM_1001, 'hex'), false]);
  await db.query(entity, ['1002', 'CONTRACT', null, false]);
  await db.query(entity, ['2002', 'ACCOUNT', Buffer.from(EVM_2002, 'hex'), false]);
  await db.query(entity, ['2004', 'ACCOUNT', Buffer.from(EVM_NULL_DELETED, 'hex'), null]);
  await db.query(entity, ['2005', 'ACCOUNT', Buffer.from(EVM_SHARED, 'hex'), false]);
  await db.query(entity, ['2006', 'CONTRACT', Buffer.from(EVM_SHARED, 'hex'), false]);
  await insertResults(db, data.results);
  await insertBlocks(db, data.blocks);
}

/** Contract results only (their entities inserted before). */
export async function insertResults(db: Db, results: readonly FixtureResult[]): Promise<void> {
  for (const r of results) {
    await db.query(
      `insert into contract_result (function_parameters, gas_limit, function_result, gas_used, consensus_timestamp, amount,
         bloom, call_result, contract_id, created_contract_ids, error_message, payer_account_id, sender_id,
         transaction_hash, transaction_index, transaction_result, transaction_nonce, gas_consumed)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 5000, $12, $13, $14, 22, $15, $16)`,
      [
        Buffer.from('0a0b', 'hex'),
        '9223372036854775807',
        r.functionResult,
        r.nonce === 0 ? '21000' : null,
        r.ts.toString(),
        String(r.nonce * 10),
        Buffer.alloc(0),
        Buffer.from('01', 'hex'),
        r.contract.toString(),
        r.createdIds?.map(String) ?? null,
        r.errorMessage,
        r.sender?.toString() ?? null,
        Buffer.from(r.ts.toString(16), 'hex'),
        r.transactionIndex,
        r.nonce,
        r.nonce === 0 ? '20000' : null,
      ],
    );
  }
}

/** Record files only. */
export async function insertBlocks(db: Db, blocks: readonly FixtureBlock[]): Promise<void> {
  for (const block of blocks) {
    await db.query(
      `insert into record_file (name, load_start, load_end, hash, prev_hash, consensus_start, consensus_end, count,
         digest_algorithm, version, file_hash, index, node_id)
       values ($1, 0, 0, $2, '', $3, $4, 1, 0, 6, '', $5, 3)`,
      [`f${block.index}.rcd`, block.hash, block.start.toString(), block.end.toString(), block.index],
    );
  }
}

/** ns -> "seconds.nanos" */
