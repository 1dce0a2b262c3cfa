/**
 * A relay-shaped workload over the ten routes, made from rows sampled out of a mirror node database:
 * blocks read by timestamp range (eth_getBlockByNumber: /contracts/results; eth_getLogs:
 * /contracts/results/logs with and without topics, one block or ten), results by transaction hash
 * and id (eth_getTransactionReceipt), their actions (debug_trace), results by timestamp, contract
 * lookups, per-contract result and log pages, state, and /contracts pages; and a hot set: the newest
 * blocks' results and logs, which every relay polls.
 */
/** What the sampling needs of a database client: pg.Client, or a wrapper of the service's Db. */
export interface Queryable {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}
import { entityIdToString } from '../../src/format/entityId.ts';
import { formatTimestamp } from '../../src/format/timestamp.ts';
import { random } from './random.ts';

export interface Block {
  index: string;
  start: string;
  end: string;
}

export interface LogSample {
  contractId: string;
  timestamp: string;
  topic0: string | null;
  block: Block;
  /** The start of the block nine before `block` (a ten-block eth_getLogs range). */
  tenBlocksStart: string;
}

export interface ResultSample {
  contractId: string;
  timestamp: string;
  hash: string | null;
}

export interface TransactionSample {
  payer: string;
  validStart: string;
  nonce: number;
}

export interface Samples {
  blocks: Block[];
  newest: Block[];
  logs: LogSample[];
  results: ResultSample[];
  transactions: TransactionSample[];
  actionHashes: string[];
  contracts: Array<{ id: string; evm: string | null }>;
  slots: Array<{ contractId: string; slot: string }>;
}

/** Reads the samples; `perKind` rows of each kind at most (fewer when the table is smaller). */
export async function sampleDatabase(client: Queryable, perKind: number, seed: number): Promise<Samples> {
  await client.query('select setseed($1)', [seed]);
  const rows = async <T>(text: string, values: unknown[] = [perKind]) => (await client.query<T>(text, values)).rows;
  const blockColumns = 'index::text as index, consensus_start::text as start, consensus_end::text as end';
  const blocks = await rows<Block>(`select ${blockColumns} from record_file order by random() limit $1`);
  const newest = await rows<Block>(`select ${blockColumns} from record_file order by consensus_end desc limit 3`, []);
  const logs = (
    await rows<{ contract_id: string; ts: string; topic0: string | null; index: string; start: string; end: string; ten: string | null }>(
      `select l.contract_id::text, l.consensus_timestamp::text as ts, encode(l.topic0, 'hex') as topic0,
              r.index::text, r.consensus_start::text as start, r.consensus_end::text as end,
              (select p.consensus_start::text from record_file p where p.consensus_end < r.consensus_start
                order by p.consensus_end desc offset 8 limit 1) as ten
         from (select * from contract_log order by random() limit $1) l
         cross join lateral (select * from record_file r where r.consensus_end >= l.consensus_timestamp order by r.consensus_end limit 1) r`,
    )
  ).map((r) => ({
    contractId: r.contract_id,
    timestamp: r.ts,
    topic0: r.topic0,
    block: { index: r.index, start: r.start, end: r.end },
    tenBlocksStart: r.ten ?? r.start,
  }));
  const results = (
    await rows<{ contract_id: string; ts: string; hash: string | null }>(
      // by the result's own hash (contract_transaction_hash__hash): the importer's schema has no index
      // on contract_transaction_hash.consensus_timestamp, and a scan of it per sampled row never ends
      `select c.contract_id::text, c.consensus_timestamp::text as ts,
              (select encode(substring(h.hash from 1 for 32), 'hex') from contract_transaction_hash h
                where h.hash = c.transaction_hash and h.consensus_timestamp = c.consensus_timestamp limit 1) as hash
         from (select contract_id, consensus_timestamp, transaction_hash from contract_result order by random() limit $1) c`,
    )
  ).map((r) => ({ contractId: r.contract_id, timestamp: r.ts, hash: r.hash }));
  const transactions = (
    await rows<{ payer: string; valid_start: string; nonce: number }>(
      `select t.payer_account_id::text as payer, t.valid_start_ns::text as valid_start, t.nonce
         from (select consensus_timestamp from contract_result order by random() limit $1) c
         join transaction t on t.consensus_timestamp = c.consensus_timestamp`,
    )
  ).map((r) => ({ payer: r.payer, validStart: r.valid_start, nonce: r.nonce }));
  const actionHashes = (
    await rows<{ hash: string }>(
      `select encode(substring(h.hash from 1 for 32), 'hex') as hash
         from (select distinct consensus_timestamp from contract_action) a
         join contract_transaction_hash h on h.consensus_timestamp = a.consensus_timestamp
        order by random() limit $1`,
    )
  ).map((r) => r.hash);
  const contracts = await rows<{ id: string; evm: string | null }>(
    `select id::text, encode(evm_address, 'hex') as evm from entity where type = 'CONTRACT' order by random() limit $1`,
  );
  const slots = (
    await rows<{ contract_id: string; slot: string }>(`select contract_id::text, encode(slot, 'hex') as slot from contract_state order by random() limit $1`)
  ).map((r) => ({ contractId: r.contract_id, slot: r.slot }));
  return { blocks, newest, logs, results, transactions, actionHashes, contracts, slots };
}

const ts = (ns: string) => formatTimestamp(ns)!;
const id = (entity: string) => entityIdToString(entity)!;
const API = '/api/v1/contracts';

const blockResults = (b: Block) => `${API}/results?timestamp=gte:${ts(b.start)}&timestamp=lte:${ts(b.end)}&limit=100&order=asc`;
const blockLogs = (b: Block) => `${API}/results/logs?timestamp=gte:${ts(b.start)}&timestamp=lte:${ts(b.end)}&limit=100&order=asc`;

/** How the distinct URLs are shared among request shapes (weights; each shape takes what its samples give). */
const SHARES: Array<[string, number]> = [
  ['block-results', 16],
  ['block-logs', 16],
  ['block-logs-topic', 6],
  ['ten-block-logs-topic', 4],
  ['result-by-hash', 14],
  ['result-by-id', 5],
  ['actions', 7],
  ['result-by-timestamp', 5],
  ['contract-lookup', 4],
  ['contract-results', 6],
  ['contract-logs', 8],
  ['state', 5],
  ['contracts', 4],
];

/** Candidate URLs of each shape, in sample order. */
function candidates(s: Samples): Map<string, string[]> {
  const logsWithTopic = s.logs.filter((l) => l.topic0);
  const txId = (t: TransactionSample) =>
    `${API}/results/${id(t.payer)}-${BigInt(t.validStart) / 1_000_000_000n}-${BigInt(t.validStart) % 1_000_000_000n}${t.nonce > 0 ? `?nonce=${t.nonce}` : ''}`;
  return new Map([
    ['block-results', s.blocks.map(blockResults)],
    ['block-logs', s.blocks.map(blockLogs)],
    ['block-logs-topic', logsWithTopic.map((l) => `${blockLogs(l.block)}&topic0=0x${l.topic0}`)],
    [
      'ten-block-logs-topic',
      logsWithTopic.map((l) => `${API}/results/logs?topic0=0x${l.topic0}&timestamp=gte:${ts(l.tenBlocksStart)}&timestamp=lte:${ts(l.block.end)}&limit=100&order=asc`),
    ],
    ['result-by-hash', s.results.filter((r) => r.hash).map((r) => `${API}/results/0x${r.hash}`)],
    ['result-by-id', s.transactions.map(txId)],
    ['actions', s.actionHashes.map((h) => `${API}/results/0x${h}/actions`)],
    ['result-by-timestamp', s.results.map((r) => `${API}/${id(r.contractId)}/results/${ts(r.timestamp)}`)],
    ['contract-lookup', s.contracts.flatMap((c) => [`${API}/${id(c.id)}`, ...(c.evm ? [`${API}/0x${c.evm}`] : [])])],
    [
      'contract-results',
      s.results.flatMap((r) => [`${API}/${id(r.contractId)}/results?timestamp=lte:${ts(r.timestamp)}&limit=25&order=desc`, `${API}/${id(r.contractId)}/results?limit=25`]),
    ],
    [
      'contract-logs',
      s.logs.flatMap((l) => [
        `${API}/${id(l.contractId)}/results/logs?timestamp=gte:${ts(l.tenBlocksStart)}&timestamp=lte:${ts(l.block.end)}${l.topic0 ? `&topic0=0x${l.topic0}` : ''}&limit=100&order=asc`,
        `${API}/${id(l.contractId)}/results/logs?timestamp=lte:${ts(l.timestamp)}&limit=25`,
      ]),
    ],
    ['state', s.slots.flatMap((st) => [`${API}/${id(st.contractId)}/state?slot=0x${st.slot}`, `${API}/${id(st.contractId)}/state?limit=25&order=asc`])],
    ['contracts', s.contracts.flatMap((c) => [`${API}?contract.id=gt:${id(c.id)}&limit=25&order=asc`, `${API}?contract.id=lte:${id(c.id)}&limit=10`])],
  ]);
}

export interface Workload {
  /** Distinct URLs in random order: line i is popularity rank i of a Zipf mix. */
  urls: string[];
  /** The newest blocks' results and logs (polled by every relay). */
  hot: string[];
  /** Distinct URLs per shape. */
  shapes: Record<string, number>;
}

/**
 * `count` distinct URLs (fewer when the samples do not give as many), shared among the shapes by
 * SHARES; a shape short of samples leaves its share to the others. Shuffled with `random`.
 */
export function buildWorkload(s: Samples, count: number, random: () => number): Workload {
  const pools = candidates(s);
  const chosen = new Set<string>();
  const shapes: Record<string, number> = {};
  const total = SHARES.reduce((sum, [, w]) => sum + w, 0);
  const cursor = new Map<string, number>(SHARES.map(([name]) => [name, 0]));
  const take = (name: string, wanted: number) => {
    const pool = pools.get(name)!;
    let i = cursor.get(name)!;
    let taken = 0;
    for (; i < pool.length && taken < wanted && chosen.size < count; i++) {
      if (chosen.has(pool[i]!)) continue;
      chosen.add(pool[i]!);
      taken++;
    }
    cursor.set(name, i);
    shapes[name] = (shapes[name] ?? 0) + taken;
    return taken;
  };
  for (const [name, weight] of SHARES) take(name, Math.round((count * weight) / total));
  // what a short shape left: round-robin over the shapes that still have candidates
  let progress = true;
  while (chosen.size < count && progress) {
    progress = false;
    for (const [name] of SHARES) if (take(name, 1) > 0) progress = true;
  }
  const urls = [...chosen];
  for (let i = urls.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [urls[i], urls[j]] = [urls[j]!, urls[i]!];
  }
  const topicCounts = new Map<string, number>();
  for (const l of s.logs) if (l.topic0) topicCounts.set(l.topic0, (topicCounts.get(l.topic0) ?? 0) + 1);
  const commonest = [...topicCounts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const hot = [
    ...s.newest.flatMap((b) => [blockResults(b), blockLogs(b)]),
    ...(commonest && s.newest[0] ? [`${blockLogs(s.newest[0])}&topic0=0x${commonest}`] : []),
  ];
  return { urls, hot, shapes };
}

/** A seeded PRNG (mulberry32, bench/lib/random.ts): the same seed gives the same workload and the same request sequence. */
export const seededRandom = random;

/**
 * Sampling by rank with P(rank k) proportional to 1 / k^s (k = 1..n), mixed with a hot set: with
 * probability `hotShare` one of the hot URLs (uniformly), else a rank of the Zipf distribution.
 * Returns indices: 0..n-1 for the ranked URLs, n.. for the hot ones.
 */
export function zipfSampler(n: number, s: number, hot: number, hotShare: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 1; k <= n; k++) cdf[k - 1] = sum += 1 / k ** s;
  for (let k = 0; k < n; k++) cdf[k]! /= sum;
  return () => {
    if (hot > 0 && random() < hotShare) return n + Math.floor(random() * hot);
    const u = random();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
