/**
 * Random request URLs for the per-URL comparison with the reference (the versus scenario), weighted toward
 * what the fixed mixes leave out: long-range topic and sender searches, network-wide and per contract,
 * every topic combination, values of every selectivity, at random points of the data, both orders,
 * several page sizes. The value pools are sampled from the database (seeded, repeatable).
 */
import { entityIdToString } from '../../src/format/entityId.ts';
import { formatTimestamp } from '../../src/format/timestamp.ts';
import { random } from '../lib/random.ts';
import type { Queryable } from '../lib/workload.ts';

export interface Pools {
  first: bigint;
  last: bigint;
  /** Contracts by log count: the hottest first. */
  logContracts: string[];
  /** Contracts by result count. */
  resultContracts: string[];
  /** Per topic column: values by count in a sampled slice (densest first), padded to 32 bytes. */
  topics: string[][];
  senders: string[];
  /** Record files: [index, start, end]. */
  blocks: Array<[string, string, string]>;
}

const pad = (v: string) => `0x${v.padStart(64, '0')}`;

/** Reads the pools: a handful of bounded aggregates over slices of the tables. */
export async function samplePools(db: Queryable, seed: number): Promise<Pools> {
  const q = async <T>(text: string, values: unknown[] = []) => (await db.query<T>(text, values)).rows;
  await q('select setseed($1)', [((seed % 1000) / 1000) * 2 - 1]);
  const [span] = await q<{ first: string; last: string }>(
    'select (select min(consensus_timestamp) from contract_log)::text as first, (select max(consensus_timestamp) from contract_log)::text as last',
  );
  const first = BigInt(span!.first);
  const last = BigInt(span!.last);
  // three slices of a day, at random points: what is dense, rare and present at all varies along the data
  const slices: Array<[string, string]> = [];
  for (let i = 0; i < 3; i++) {
    const at = first + BigInt(Math.floor(Math.random() * Number(last - first - 86_400_000_000_000n > 0n ? last - first - 86_400_000_000_000n : 1n)));
    slices.push([at.toString(), (at + 86_400_000_000_000n).toString()]);
  }
  const logContracts = new Map<string, number>();
  const topics: Array<Map<string, number>> = [new Map(), new Map(), new Map(), new Map()];
  const resultContracts = new Map<string, number>();
  const senders = new Map<string, number>();
  for (const [from, to] of slices) {
    for (const r of await q<{ id: string; n: string }>(
      `select contract_id::text as id, count(*)::text as n from (select contract_id from contract_log where consensus_timestamp between $1 and $2 limit 300000) s group by 1`,
      [from, to],
    )) logContracts.set(r.id, (logContracts.get(r.id) ?? 0) + Number(r.n));
    for (const n of [0, 1, 2, 3]) {
      for (const r of await q<{ v: string; n: string }>(
        `select encode(topic${n}, 'hex') as v, count(*)::text as n from (select topic${n} from contract_log where consensus_timestamp between $1 and $2 limit 300000) s
          where topic${n} is not null and ltrim(encode(topic${n}, 'hex'), '0') <> '' group by 1`,
        [from, to],
      )) topics[n]!.set(r.v, (topics[n]!.get(r.v) ?? 0) + Number(r.n));
    }
    for (const r of await q<{ id: string; n: string; s: string | null }>(
      `select contract_id::text as id, count(*)::text as n, null as s from (select contract_id from contract_result where consensus_timestamp between $1 and $2 limit 300000) s group by 1
       union all
       select null, count(*)::text, sender_id::text from (select sender_id from contract_result where consensus_timestamp between $1 and $2 and sender_id is not null limit 300000) s group by 3`,
      [from, to],
    )) {
      if (r.s === null) resultContracts.set(r.id, (resultContracts.get(r.id) ?? 0) + Number(r.n));
      else senders.set(r.s, (senders.get(r.s) ?? 0) + Number(r.n));
    }
  }
  const ranked = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k]) => k);
  const blocks = await q<{ index: string; start: string; end: string }>(
    'select index::text, consensus_start::text as start, consensus_end::text as end from record_file where consensus_end between $1 and $2 order by random() limit 200',
    [first.toString(), last.toString()],
  );
  return {
    first,
    last,
    logContracts: ranked(logContracts),
    resultContracts: ranked(resultContracts),
    topics: topics.map((m) => ranked(m).map(pad)),
    senders: ranked(senders),
    blocks: blocks.map((b) => [b.index, b.start, b.end]),
  };
}

const API = '/api/v1/contracts';
const SECOND = 1_000_000_000n;
const WINDOWS: Array<[string, bigint]> = [
  ['block', 2n * SECOND],
  ['minute', 60n * SECOND],
  ['hour', 3600n * SECOND],
  ['day', 86_400n * SECOND],
  ['3 days', 3n * 86_400n * SECOND],
  ['week', 7n * 86_400n * SECOND],
];

export interface Search {
  /** The kind of search, e.g. "network logs, topic0+topic2, week". */
  kind: string;
  path: string;
}

/** `count` URLs from the pools. */
export function generateSearches(pools: Pools, count: number, seed: number): Search[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  /** An item of a ranked list by class: dense (the top few), rare (the tail), or absent (made up). */
  const ranked = (xs: readonly string[], absent: string): [string, string] => {
    const r = rnd();
    if (xs.length === 0 || r < 0.2) return ['absent', absent];
    if (r < 0.55) return ['dense', xs[Math.floor(rnd() * Math.min(5, xs.length))]!];
    if (r < 0.8) return ['middle', xs[Math.floor(xs.length * (0.05 + rnd() * 0.45))]!];
    return ['rare', xs[xs.length - 1 - Math.floor(rnd() * Math.min(50, xs.length))]!];
  };
  const absentTopic = () => `0x${Array.from({ length: 32 }, () => Math.floor(rnd() * 256).toString(16).padStart(2, '0')).join('')}`;
  const window = (): [string, string] => {
    const [name, length] = rnd() < 0.5 ? WINDOWS[WINDOWS.length - 1]! : pick(WINDOWS);
    const span = pools.last - pools.first;
    const end = rnd() < 0.4 ? pools.last : pools.first + length + BigInt(Math.floor(rnd() * Number(span > length ? span - length : 1n)));
    const from = end - length + 1n;
    const op = rnd() < 0.5 ? 'lte' : 'lt';
    return [name, `timestamp=gte:${formatTimestamp(from)}&timestamp=${op}:${formatTimestamp(op === 'lt' ? end + 1n : end)}`];
  };
  const tail = () => {
    const parts: string[] = [];
    if (rnd() < 0.4) parts.push('order=asc');
    const r = rnd();
    if (r < 0.3) parts.push('limit=100');
    else if (r < 0.4) parts.push(`limit=${1 + Math.floor(rnd() * 10)}`);
    return parts;
  };
  const topicFilters = (): [string, string[]] => {
    const columns = [0, 1, 2, 3].filter(() => rnd() < 0.45);
    if (columns.length === 0) columns.push(Math.floor(rnd() * 4));
    const classes: string[] = [];
    const parts: string[] = [];
    for (const n of columns) {
      const [cls, value] = ranked(pools.topics[n]!, absentTopic());
      classes.push(`topic${n} ${cls}`);
      parts.push(`topic${n}=${value}`);
      if (n === 0 && rnd() < 0.15) {
        const [cls2, value2] = ranked(pools.topics[0]!, absentTopic());
        classes.push(`topic0 ${cls2}`);
        parts.push(`topic0=${value2}`);
      }
    }
    return [classes.join('+'), parts];
  };
  const contract = (list: readonly string[]): [string, string] => {
    const [cls, id] = ranked(list, '99999999');
    return [cls, entityIdToString(id)!];
  };
  const out: Search[] = [];
  while (out.length < count) {
    const r = rnd();
    let kind: string;
    let path: string;
    if (r < 0.3) {
      const [w, range] = window();
      const [classes, parts] = topicFilters();
      kind = `network logs, ${classes}, ${w}`;
      path = `${API}/results/logs?${[...parts, range, ...tail()].join('&')}`;
    } else if (r < 0.55) {
      const [w, range] = window();
      const [cc, id] = contract(pools.logContracts);
      const [classes, parts] = rnd() < 0.85 ? topicFilters() : ['no topic', []];
      kind = `contract logs, ${cc} contract, ${classes}, ${w}`;
      path = `${API}/${id}/results/logs?${[...parts, range, ...tail()].join('&')}`;
    } else if (r < 0.68) {
      const [w, range] = window();
      const [sc, sender] = ranked(pools.senders, '99999999');
      kind = `network results, ${sc} sender, ${w}`;
      path = `${API}/results?${[`from=${entityIdToString(sender)}`, ...(rnd() < 0.7 ? [range] : []), ...tail()].join('&')}`;
    } else if (r < 0.8) {
      const [cc, id] = contract(pools.resultContracts);
      const parts: string[] = [];
      let what = 'plain';
      if (rnd() < 0.5) {
        const [sc, sender] = ranked(pools.senders, '99999999');
        parts.push(`from=${entityIdToString(sender)}`);
        what = `${sc} sender`;
      }
      if (rnd() < 0.5) {
        const [w, range] = window();
        parts.push(range);
        what += `, ${w}`;
      }
      if (rnd() < 0.2) parts.push('internal=true');
      kind = `contract results, ${cc} contract, ${what}`;
      path = `${API}/${id}/results?${[...parts, ...tail()].join('&')}`;
    } else if (r < 0.9) {
      const [w, range] = window();
      kind = `network results, ${w}`;
      path = `${API}/results?${[range, ...tail()].join('&')}`;
    } else {
      const [index, start, end] = pick(pools.blocks);
      const b = rnd();
      if (b < 0.4) {
        kind = 'network logs, one block (the relay)';
        path = `${API}/results/logs?timestamp=gte:${formatTimestamp(start)}&timestamp=lte:${formatTimestamp(end)}&limit=100&order=asc`;
      } else if (b < 0.7) {
        kind = 'network results, one block (the relay)';
        path = `${API}/results?timestamp=gte:${formatTimestamp(start)}&timestamp=lte:${formatTimestamp(end)}&limit=100&order=asc`;
      } else {
        kind = 'network results, block.number';
        path = `${API}/results?block.number=${index}`;
      }
    }
    out.push({ kind, path: path.replace(/\?$/, '') });
  }
  return out;
}
