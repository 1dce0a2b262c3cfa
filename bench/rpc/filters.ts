/**
 * eth_getLogs filter objects of every shape, valid and not, from a seeded random source and the
 * sampled values: addresses none / one / an array, in EVM and long-zero forms, dense, rare and
 * absent; topics with null, nested OR arrays and positions 0-3; block ranges from one block to the
 * whole chain as hex numbers and tags, or a block hash.
 */
import type { LogSample, Pool } from './sample.ts';

export type Random = () => number;

export const TAGS = ['earliest', 'latest', 'pending', 'safe', 'finalized'] as const;

/** A pick of the generator: a value and the name of its shape, for the summary. */
export interface Shaped<T> {
  value: T;
  shape: string;
}

export class Picker {
  constructor(
    readonly random: Random,
    readonly pool: Pool,
  ) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(values: readonly T[]): T {
    if (values.length === 0) throw new Error('pick from an empty list');
    return values[Math.floor(this.random() * values.length)]!;
  }

  /** One of the weighted choices: [[weight, choice], ...]. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    let r = this.random() * choices.reduce((s, [w]) => s + w, 0);
    for (const [w, c] of choices) if ((r -= w) < 0) return c;
    return choices[choices.length - 1]![1];
  }

  hex(chars: number): string {
    let s = '';
    while (s.length < chars) s += Math.floor(this.random() * 16).toString(16);
    return s;
  }

  log(): LogSample {
    return this.pick(this.pool.logs);
  }
}

export const toHex = (n: number) => `0x${n.toString(16)}`;

/** An address in one of its spellings: lower case (as sampled), upper-case hex digits, or 0X. */
function spelled(p: Picker, address: string): string {
  return p.weighted([
    [8, address],
    [1, `0x${address.slice(2).toUpperCase()}`],
    [1, `0X${address.slice(2)}`],
  ]);
}

function oneAddress(p: Picker, anchor: LogSample): Shaped<string> {
  const pool = p.pool;
  const [shape, values] = p.weighted<[string, string[]]>([
    [4, ['anchor', [anchor.address]]],
    [2, ['dense', pool.denseAddresses]],
    [2, ['rare', pool.rareAddresses]],
    [1, ['absent', pool.absentAddresses]],
    [1, ['long-zero-of-evm', pool.longZeroOfEvm.length ? pool.longZeroOfEvm : pool.denseAddresses]],
    [1, ['random', [`0x${p.hex(40)}`]]],
  ]);
  return { value: spelled(p, p.pick(values)), shape };
}

export function addressPart(p: Picker, anchor: LogSample): Shaped<string | string[] | undefined> {
  const form = p.weighted([
    [3, 'none'],
    [4, 'one'],
    [3, 'array'],
  ] as const);
  if (form === 'none') return { value: undefined, shape: 'address:none' };
  if (form === 'one') {
    const a = oneAddress(p, anchor);
    return { value: a.value, shape: `address:${a.shape}` };
  }
  const n = p.weighted([
    [1, 0],
    [3, 1],
    [4, p.int(2, 4)],
    [1, p.int(5, 12)],
  ]);
  const items = Array.from({ length: n }, () => oneAddress(p, anchor));
  if (n > 1 && p.chance(0.15)) items.push(items[0]!);
  return { value: items.map((a) => a.value), shape: `address:array${n}` };
}

function oneTopic(p: Picker, anchor: LogSample, position: number): Shaped<string | null> {
  const pool = p.pool;
  return p.weighted<Shaped<string | null>>([
    [2, { value: null, shape: 'null' }],
    [5, { value: anchor.topics[position] ?? null, shape: 'anchor' }],
    [position === 0 ? 3 : 1, { value: p.pick(pool.denseTopics), shape: 'dense' }],
    [1, { value: p.pick(pool.rareTopics.length ? pool.rareTopics : pool.denseTopics), shape: 'rare' }],
    [1, { value: `0x${p.hex(64)}`, shape: 'absent' }],
  ]);
}

export function topicsPart(p: Picker, anchor: LogSample): Shaped<(string | null | (string | null)[])[] | undefined> {
  if (p.chance(0.3)) return { value: undefined, shape: 'topics:none' };
  const n = p.weighted([
    [1, 0],
    [3, 1],
    [3, 2],
    [2, 3],
    [2, 4],
  ]);
  const shapes: string[] = [];
  const value = Array.from({ length: n }, (_, i) => {
    if (p.chance(0.2)) {
      const k = p.int(1, 3);
      const or = Array.from({ length: k }, () => oneTopic(p, anchor, i));
      shapes.push(`or${k}`);
      return or.map((t) => t.value);
    }
    const t = oneTopic(p, anchor, i);
    shapes.push(t.shape);
    return t.value;
  });
  return { value, shape: `topics:[${shapes.join(',')}]` };
}

/** The block part of a filter: fromBlock / toBlock, or blockHash, and its shape. */
export function blockPart(p: Picker, anchor: LogSample): Shaped<Record<string, string>> {
  const { firstBlock, lastBlock } = p.pool;
  const span = p.weighted([
    [4, 0],
    [2, p.int(1, 9)],
    [2, 99],
    [2, 999],
    [1, 1000],
    [1, 1001],
    [1, p.int(1002, 5000)],
    [1, lastBlock - firstBlock],
  ]);
  const from = Math.max(firstBlock, Math.min(anchor.block - p.int(0, span), lastBlock - span));
  const to = from + span;
  return p.weighted<Shaped<Record<string, string>>>([
    [10, { value: { fromBlock: toHex(from), toBlock: toHex(to) }, shape: `range:${span + 1}` }],
    [1, { value: { fromBlock: p.pick(TAGS), toBlock: p.pick(TAGS) }, shape: 'tags' }],
    [1, { value: { fromBlock: toHex(from), toBlock: p.pick(TAGS) }, shape: 'number-tag' }],
    [1, { value: { fromBlock: p.pick(TAGS), toBlock: toHex(to) }, shape: 'tag-number' }],
    [1, { value: { fromBlock: toHex(lastBlock - p.int(0, 20)) }, shape: 'from-only' }],
    [1, { value: { toBlock: p.pick([toHex(to), toHex(lastBlock), 'latest']) }, shape: 'to-only' }],
    [1, { value: {}, shape: 'no-blocks' }],
    [1, { value: { fromBlock: toHex(lastBlock + p.int(1, 50)), toBlock: toHex(lastBlock + p.int(51, 100)) }, shape: 'future' }],
    [2, { value: { blockHash: p.pick(p.pool.blockHashes).hash }, shape: 'blockHash' }],
    [1, { value: { blockHash: `0x${p.hex(64)}` }, shape: 'blockHash-absent' }],
  ]);
}

/** A valid filter object (the relay may still refuse it: ranges over its limit, over 7 days). */
export function validFilter(p: Picker): Shaped<Record<string, unknown>> {
  const anchor = p.log();
  const blocks = blockPart(p, anchor);
  const address = addressPart(p, anchor);
  const topics = topicsPart(p, anchor);
  const filter: Record<string, unknown> = { ...blocks.value };
  if (address.value !== undefined) filter.address = address.value;
  if (topics.value !== undefined) filter.topics = topics.value;
  return { value: filter, shape: `${blocks.shape} ${address.shape} ${topics.shape}` };
}
