/**
 * Values of every selectivity class, read out of a mirror node database, for the plan sweep and the
 * per-URL comparison: the plan of a statement can be right for one value and 100x too slow for another,
 * so every filter is tried with a value of each class.
 *
 * - contracts: hot (the most logs, the most results), cold (a handful of rows), child-only (results
 *   that are all internal: the HTS system contract), absent (a contract without any);
 * - topics, per column, network-wide and on the hot contract: dense (the commonest value of the
 *   window), rare (one that occurs once), absent (occurs nowhere); pairs of topics that occur together
 *   densely, and pairs of two dense values that never occur together;
 * - senders: dense, rare, absent;
 * - windows ending at the newest log: one block (record file), one hour, one day, seven days.
 *
 * Every statement reads a bounded slice (the newest day or week, through the primary keys), so a
 * sample of the 15 GB bench database takes seconds.
 */
import type { Queryable } from '../lib/workload.ts';

/** A topic value as the URL gives it: 0x and the stored bytes (leading zero bytes stripped, as stored). */
export type Topic = string;

export interface TopicClasses {
  dense: Topic;
  rare: Topic;
  absent: Topic;
}

export interface Window {
  name: 'block' | 'hour' | 'day' | 'week';
  /** Inclusive bounds, nanoseconds. */
  from: bigint;
  to: bigint;
}

export interface TopicSamples {
  /** Per topic column 0-3 (a column without values in the window gets only an absent value). */
  columns: TopicClasses[];
  /** Two topic0 values (the densest two), for OR-ed topic0 filters. */
  topic0Pair: [Topic, Topic];
  /** For topic columns 1-3: a value that occurs densely together with the dense topic0 (index 0 unused). */
  withDense0: Topic[];
  /** For topic columns 1-3: a dense value of that column that never occurs with the dense topic0. */
  disjointFrom0: Topic[];
}

export interface Samples {
  /** Windows ending at the newest log. */
  windows: Window[];
  /** A seven-day window in the middle of the data (older pages: less of it in memory). */
  olderWeek: Window;
  network: TopicSamples;
  contracts: {
    hotLogs: string;
    hotResults: string;
    cold: string;
    childOnly: string | undefined;
    absent: string;
  };
  /** Topics of the contract with the most logs. */
  hot: TopicSamples;
  senders: { dense: string; rare: string; absent: string };
  /** A block number and hash from the week (a block with results). */
  block: { number: string; hash: string };
  /** A contract with state, and one of its slots. */
  state: { contract: string; slot: string } | undefined;
  /** A transaction hash with actions, and a result (contract and timestamp) for the single-result routes. */
  transaction: { hash: string; contract: string; timestamp: bigint } | undefined;
}

const NS = 1_000_000_000n;
const ABSENT_TOPIC = `0x${'5a'.repeat(32)}`;
/** A stored topic as a URL gives it: 32 bytes, zero-padded (a value of zero bytes only is no usable sample). */
const hex = (v: string | null | undefined): Topic => (v && /[^0]/.test(v) ? `0x${v.padStart(64, '0')}` : ABSENT_TOPIC);

/** A topic column's value that a URL can name: present, and not all zero bytes (the service strips leading zeros). */
const usable = (n: number) => `topic${n} is not null and ltrim(encode(topic${n}, 'hex'), '0') <> ''`;

async function rows<T>(db: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  return (await db.query<T>(text, values)).rows;
}

/**
 * Topic classes of one slice of logs: `where` selects the slice (values $1, $2 are the window's
 * bounds, $3 the contract when there is one).
 */
async function topicSamples(db: Queryable, where: string, values: unknown[]): Promise<TopicSamples> {
  const slice = `(select topic0, topic1, topic2, topic3 from contract_log where ${where} limit 400000) s`;
  const columns: TopicClasses[] = [];
  for (const n of [0, 1, 2, 3]) {
    const counts = await rows<{ v: string; n: string }>(
      db,
      `select encode(topic${n}, 'hex') as v, count(*)::text as n from ${slice} where ${usable(n)} group by 1 order by count(*) desc, 1`,
      values,
    );
    const rare = counts.filter((c) => c.n === '1');
    columns.push({ dense: hex(counts[0]?.v), rare: hex(rare[Math.floor(rare.length / 2)]?.v ?? counts[counts.length - 1]?.v), absent: ABSENT_TOPIC });
  }
  const dense0 = columns[0]!.dense.slice(2);
  const pair = await rows<{ v: string }>(
    db,
    `select encode(topic0, 'hex') as v from ${slice} where topic0 is not null group by 1 order by count(*) desc, 1 limit 2`,
    values,
  );
  const withDense0: Topic[] = [ABSENT_TOPIC];
  const disjointFrom0: Topic[] = [ABSENT_TOPIC];
  for (const n of [1, 2, 3]) {
    const [together] = await rows<{ v: string }>(
      db,
      `select encode(topic${n}, 'hex') as v from ${slice} where topic0 = decode($${values.length + 1}, 'hex') and ${usable(n)}
        group by 1 order by count(*) desc, 1 limit 1`,
      [...values, dense0],
    );
    const [apart] = await rows<{ v: string }>(
      db,
      `select encode(topic${n}, 'hex') as v from ${slice} where ${usable(n)} group by 1
        having count(*) filter (where topic0 = decode($${values.length + 1}, 'hex')) = 0 order by count(*) desc, 1 limit 1`,
      [...values, dense0],
    );
    withDense0.push(hex(together?.v));
    disjointFrom0.push(hex(apart?.v));
  }
  return { columns, topic0Pair: [hex(pair[0]?.v), hex(pair[1]?.v ?? pair[0]?.v)], withDense0, disjointFrom0 };
}

/** Reads the samples. The database must hold logs and results. */
export async function sampleSelectivity(db: Queryable): Promise<Samples> {
  const [newest] = await rows<{ end: string | null; start: string | null; first: string | null }>(
    db,
    `select (select max(consensus_timestamp) from contract_log)::text as end,
            (select min(consensus_timestamp) from contract_log)::text as first,
            (select r.consensus_start from record_file r
              where r.consensus_end >= (select max(consensus_timestamp) from contract_log) order by r.consensus_end limit 1)::text as start`,
  );
  if (!newest?.end || !newest.first) throw new Error('the database holds no contract logs to sample');
  const end = BigInt(newest.end);
  const first = BigInt(newest.first);
  const window = (name: Window['name'], seconds: bigint): Window => ({ name, from: end - seconds * NS + 1n > first ? end - seconds * NS + 1n : first, to: end });
  const block: Window = { name: 'block', from: newest.start ? BigInt(newest.start) : end - 2n * NS, to: end };
  const windows = [block, window('hour', 3600n), window('day', 86_400n), window('week', 7n * 86_400n)];
  const week = windows[3]!;
  const day = windows[2]!;
  const middle = first + (end - first) / 2n;
  const olderWeek: Window = { name: 'week', from: middle - 7n * 86_400n * NS + 1n > first ? middle - 7n * 86_400n * NS + 1n : first, to: middle };
  const bounds = [day.from.toString(), day.to.toString()];

  const [hotLogs] = await rows<{ id: string }>(
    db,
    `select contract_id::text as id from (select contract_id from contract_log where consensus_timestamp between $1 and $2 limit 400000) s
      group by 1 order by count(*) desc, 1 limit 1`,
    bounds,
  );
  const resultCounts = await rows<{ id: string; top: string; all: string }>(
    db,
    `select contract_id::text as id, count(*) filter (where transaction_nonce = 0)::text as top, count(*)::text as all
       from (select contract_id, transaction_nonce from contract_result where consensus_timestamp between $1 and $2 limit 400000) s
      group by 1 order by count(*) desc, 1`,
    [week.from.toString(), week.to.toString()],
  );
  const childOnly = resultCounts.find((c) => c.top === '0' && Number(c.all) > 1)?.id;
  const [cold] = await rows<{ id: string }>(
    db,
    `select contract_id::text as id from (select contract_id from contract_log where consensus_timestamp between $1 and $2 limit 400000) s
      group by 1 having count(*) between 1 and 20 order by count(*), 1 limit 1`,
    [week.from.toString(), week.to.toString()],
  );
  const [absent] = await rows<{ id: string }>(
    db,
    `select e.id::text from entity e where e.type = 'CONTRACT'
        and not exists (select 1 from contract_log l where l.contract_id = e.id)
        and not exists (select 1 from contract_result r where r.contract_id = e.id)
      order by e.id limit 1`,
  );
  const senders = await rows<{ id: string; n: string }>(
    db,
    `select sender_id::text as id, count(*)::text as n from (select sender_id from contract_result where consensus_timestamp between $1 and $2
        and sender_id is not null limit 400000) s group by 1 order by count(*) desc, 1`,
    [week.from.toString(), week.to.toString()],
  );
  const [maxEntity] = await rows<{ id: string }>(db, 'select (max(id) + 1000)::text as id from entity');
  const [blockRow] = await rows<{ index: string; hash: string }>(
    db,
    `select r.index::text, r.hash from record_file r
      where r.consensus_end >= (select consensus_timestamp from contract_result where consensus_timestamp between $1 and $2 order by consensus_timestamp desc limit 1)
      order by r.consensus_end limit 1`,
    [week.from.toString(), week.to.toString()],
  );
  const [stateRow] = await rows<{ contract: string; slot: string }>(
    db,
    `select contract_id::text as contract, encode(slot, 'hex') as slot from contract_state order by contract_id, slot limit 1`,
  );
  const [transaction] = await rows<{ hash: string; contract: string; ts: string }>(
    db,
    `select encode(r.transaction_hash, 'hex') as hash, r.contract_id::text as contract, r.consensus_timestamp::text as ts
       from contract_result r where r.consensus_timestamp between $1 and $2 and r.transaction_nonce = 0 and r.transaction_hash is not null
        and exists (select 1 from contract_action a where a.consensus_timestamp = r.consensus_timestamp)
      order by r.consensus_timestamp desc limit 1`,
    [week.from.toString(), week.to.toString()],
  );
  const hotLogsId = hotLogs?.id ?? resultCounts[0]!.id;
  const densest = senders[0]?.id ?? '0';
  const rare = senders.filter((s) => s.n === '1');
  return {
    windows,
    olderWeek,
    network: await topicSamples(db, 'consensus_timestamp between $1 and $2', bounds),
    contracts: {
      hotLogs: hotLogsId,
      hotResults: resultCounts[0]?.id ?? hotLogsId,
      cold: cold?.id ?? hotLogsId,
      childOnly,
      absent: absent?.id ?? maxEntity!.id,
    },
    hot: await topicSamples(db, 'contract_id = $3 and consensus_timestamp between $1 and $2', [week.from.toString(), week.to.toString(), hotLogsId]),
    senders: { dense: densest, rare: rare[Math.floor(rare.length / 2)]?.id ?? densest, absent: maxEntity!.id },
    block: { number: blockRow?.index ?? '0', hash: blockRow?.hash ?? '0'.repeat(96) },
    state: stateRow,
    transaction: transaction && { hash: transaction.hash, contract: transaction.contract, timestamp: BigInt(transaction.ts) },
  };
}
