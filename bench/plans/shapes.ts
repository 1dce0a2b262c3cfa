/**
 * Request shapes for the plan sweep: every route with every combination of its filters, each filter
 * given a value of every selectivity class (sample.ts), over windows from one block to seven days, in
 * both orders. A shape is one URL; the sweep also follows its next link (the second page).
 */
import { entityIdToString } from '../../src/format/entityId.ts';
import { formatTimestamp } from '../../src/format/timestamp.ts';
import type { Endpoint } from '../lib/urls.ts';
import type { Samples, Topic, TopicSamples, Window } from './sample.ts';

export interface Shape {
  endpoint: Endpoint;
  /** The filter combination, e.g. "topic0+topic1 over a week". */
  filters: string;
  /** The classes of its values, e.g. "dense+absent, desc". */
  values: string;
  path: string;
}

const API = '/api/v1/contracts';
const id = (encoded: string) => entityIdToString(encoded)!;
const range = (w: Window) => `timestamp=gte:${formatTimestamp(w.from)}&timestamp=lte:${formatTimestamp(w.to)}`;

type TopicFilter = Array<[column: number, value: Topic]>;

/** Topic combinations with the classes of their values: single columns, pairs with topic0, and more. */
function topicCombinations(t: TopicSamples): Array<{ filters: string; values: string; topics: TopicFilter }> {
  const out: Array<{ filters: string; values: string; topics: TopicFilter }> = [];
  for (const n of [0, 1, 2, 3]) {
    const c = t.columns[n]!;
    for (const cls of ['dense', 'rare', 'absent'] as const) out.push({ filters: `topic${n}`, values: cls, topics: [[n, c[cls]]] });
  }
  const c0 = t.columns[0]!;
  for (const n of [1, 2, 3]) {
    const cn = t.columns[n]!;
    const pairs: Array<[string, Topic, Topic]> = [
      ['dense+dense (together)', c0.dense, t.withDense0[n]!],
      ['dense+dense (never together)', c0.dense, t.disjointFrom0[n]!],
      ['dense+rare', c0.dense, cn.rare],
      ['dense+absent', c0.dense, cn.absent],
      ['rare+dense', c0.rare, cn.dense],
      ['absent+dense', c0.absent, cn.dense],
    ];
    for (const [values, a, b] of pairs) out.push({ filters: `topic0+topic${n}`, values, topics: [[0, a], [n, b]] });
  }
  out.push({ filters: 'topic1+topic2', values: 'dense+dense', topics: [[1, t.columns[1]!.dense], [2, t.columns[2]!.dense]] });
  out.push({ filters: 'topic1+topic2', values: 'dense+absent', topics: [[1, t.columns[1]!.dense], [2, t.columns[2]!.absent]] });
  out.push({ filters: 'topic0+topic1+topic2', values: 'dense+dense+dense', topics: [[0, c0.dense], [1, t.withDense0[1]!], [2, t.withDense0[2]!]] });
  out.push({ filters: 'topic0+topic1+topic2', values: 'dense+dense+absent', topics: [[0, c0.dense], [1, t.withDense0[1]!], [2, t.columns[2]!.absent]] });
  out.push({ filters: 'topic0 (two values)+topic1', values: 'dense,dense+dense', topics: [[0, t.topic0Pair[0]], [0, t.topic0Pair[1]], [1, t.withDense0[1]!]] });
  out.push({ filters: 'topic0 (two values)+topic1', values: 'dense,dense+absent', topics: [[0, t.topic0Pair[0]], [0, t.topic0Pair[1]], [1, t.columns[1]!.absent]] });
  return out;
}

const topicQuery = (topics: TopicFilter) => topics.map(([n, v]) => `topic${n}=${v}`).join('&');

/** Every shape of the ten routes over the samples. `quick` keeps one order and the widest window of each filter. */
export function sweepShapes(s: Samples, { quick = false } = {}): Shape[] {
  const shapes: Shape[] = [];
  const orders = quick ? (['desc'] as const) : (['desc', 'asc'] as const);
  const add = (endpoint: Endpoint, filters: string, values: string, base: string, query: string) => {
    const single = endpoint === 'lookup' || endpoint === 'result-by-tx' || endpoint === 'result-by-ts';
    for (const order of single ? (['desc'] as const) : orders) {
      const q = [query, order === 'asc' ? 'order=asc' : ''].filter(Boolean).join('&');
      shapes.push({ endpoint, filters, values: single ? values : `${values}${values ? ', ' : ''}${order}`, path: q ? `${base}?${q}` : base });
    }
  };
  // one block, an hour and a week at the newest data, and a week in the middle of it (a day adds nothing that
  // the hour and the week do not show)
  const windows = quick ? [s.windows[3]!] : [s.windows[0]!, s.windows[1]!, s.windows[3]!, s.olderWeek];
  const windowName = (w: Window) => (w === s.olderWeek ? 'an older week' : `a ${w.name}`);

  // network-wide logs: the relay's eth_getLogs without an address
  for (const w of windows) {
    add('all-logs', `timestamp over ${windowName(w)}`, '', `${API}/results/logs`, range(w));
    for (const c of topicCombinations(s.network)) {
      if (quick && !['dense', 'absent', 'dense+dense (together)', 'dense+absent'].includes(c.values)) continue;
      add('all-logs', `${c.filters} over ${windowName(w)}`, c.values, `${API}/results/logs`, `${topicQuery(c.topics)}&${range(w)}`);
    }
  }
  // one contract's logs
  const contracts: Array<[string, string]> = [
    ['hot', s.contracts.hotLogs],
    ['cold', s.contracts.cold],
    ['absent', s.contracts.absent],
  ];
  for (const [cls, contract] of contracts) {
    const base = `${API}/${id(contract)}/results/logs`;
    add('logs', 'none', `${cls} contract`, base, '');
    if (!quick) add('logs', 'limit=100', `${cls} contract`, base, 'limit=100');
    for (const w of windows) {
      add('logs', `timestamp over ${windowName(w)}`, `${cls} contract`, base, range(w));
      const topics = cls === 'hot' ? s.hot : s.network;
      for (const c of topicCombinations(topics)) {
        if ((quick || cls !== 'hot') && !['dense', 'absent', 'dense+dense (together)', 'dense+absent'].includes(c.values)) continue;
        if (cls !== 'hot' && w.name !== 'week') continue;
        add('logs', `${c.filters} over ${windowName(w)}`, `${cls} contract, ${c.values}`, base, `${topicQuery(c.topics)}&${range(w)}`);
      }
    }
  }
  // results, network-wide and of one contract
  const senders: Array<[string, string]> = [
    ['dense', s.senders.dense],
    ['rare', s.senders.rare],
    ['absent', s.senders.absent],
  ];
  for (const w of windows) {
    add('all-results', `timestamp over ${windowName(w)}`, '', `${API}/results`, range(w));
    for (const [cls, sender] of senders) add('all-results', `from+timestamp over ${windowName(w)}`, cls, `${API}/results`, `from=${id(sender)}&${range(w)}`);
    if (!quick) add('all-results', `internal=true+timestamp over ${windowName(w)}`, '', `${API}/results`, `internal=true&${range(w)}`);
  }
  for (const [cls, sender] of senders) add('all-results', 'from', cls, `${API}/results`, `from=${id(sender)}`);
  add('all-results', 'none', '', `${API}/results`, '');
  add('all-results', 'block.number', '', `${API}/results`, `block.number=${s.block.number}`);
  add('all-results', 'block.hash', '', `${API}/results`, `block.hash=0x${s.block.hash}`);
  const resultContracts: Array<[string, string | undefined]> = [
    ['hot', s.contracts.hotResults],
    ['cold', s.contracts.cold],
    ['child-only', s.contracts.childOnly],
    ['absent', s.contracts.absent],
  ];
  for (const [cls, contract] of resultContracts) {
    if (contract === undefined) continue;
    const base = `${API}/${id(contract)}/results`;
    add('results', 'none', `${cls} contract`, base, '');
    add('results', 'internal=true', `${cls} contract`, base, 'internal=true');
    add('results', 'block.number', `${cls} contract`, base, `block.number=${s.block.number}`);
    for (const w of windows) add('results', `timestamp over ${windowName(w)}`, `${cls} contract`, base, range(w));
    for (const [sc, sender] of senders) add('results', 'from', `${cls} contract, ${sc} sender`, base, `from=${id(sender)}`);
  }
  // the other routes: lookups, with little to vary but the contract
  for (const [cls, contract] of contracts) {
    add('lookup', 'none', `${cls} contract`, `${API}/${id(contract)}`, '');
    add('state', 'none', `${cls} contract`, `${API}/${id(contract)}/state`, '');
  }
  if (s.state) {
    add('state', 'slot', '', `${API}/${id(s.state.contract)}/state`, `slot=0x${s.state.slot}`);
    add('state', 'timestamp', '', `${API}/${id(s.state.contract)}/state`, `timestamp=${formatTimestamp(s.windows[3]!.to)}`);
  }
  add('contracts', 'none', '', API, '');
  add('contracts', 'contract.id range', '', API, `contract.id=gte:${id(s.contracts.cold)}&contract.id=lte:${id(s.contracts.absent)}`);
  if (s.transaction) {
    const t = s.transaction;
    add('result-by-tx', 'hash', '', `${API}/results/0x${t.hash}`, '');
    add('actions', 'hash', '', `${API}/results/0x${t.hash}/actions`, '');
    add('result-by-ts', 'timestamp', '', `${API}/${id(t.contract)}/results/${formatTimestamp(t.timestamp)}`, '');
    add('all-logs', 'transaction.hash', '', `${API}/results/logs`, `transaction.hash=0x${t.hash}`);
  }
  // a route with one order only repeats itself: keep the first of identical paths
  const seen = new Set<string>();
  return shapes.filter((shape) => !seen.has(shape.path) && seen.add(shape.path));
}
