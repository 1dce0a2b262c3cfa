/**
 * eth_getLogs params that must be refused, one fault each on top of a valid filter: bad hex, wrong
 * types, fromBlock after toBlock, blockHash with a range, five topics, unknown keys, wrong params
 * arrays. Each has a name for the summary.
 */
import { type Picker, type Shaped, toHex, validFilter } from './filters.ts';

type Filter = Record<string, unknown>;

const FAULTS: readonly (readonly [string, (p: Picker, f: Filter) => unknown])[] = [
  ['address-short', (p, f) => ({ ...f, address: `0x${p.hex(39)}` })],
  ['address-no-0x', (p, f) => ({ ...f, address: p.hex(40) })],
  ['address-not-hex', (p, f) => ({ ...f, address: `0x${p.hex(38)}zz` })],
  ['address-number', (p, f) => ({ ...f, address: p.int(1, 5_000_000) })],
  ['address-array-bad-item', (p, f) => ({ ...f, address: [p.pick(p.pool.denseAddresses), '0x1234'] })],
  ['address-null', (_p, f) => ({ ...f, address: null })],
  ['address-nested-array', (p, f) => ({ ...f, address: [[p.pick(p.pool.denseAddresses)]] })],
  ['topic-short', (p, f) => ({ ...f, topics: [`0x${p.hex(62)}`] })],
  ['topic-no-0x', (p, f) => ({ ...f, topics: [p.hex(64)] })],
  ['topic-number', (p, f) => ({ ...f, topics: [p.int(1, 1000)] })],
  ['topics-string', (p, f) => ({ ...f, topics: p.pick(p.pool.denseTopics) })],
  ['topics-null', (_p, f) => ({ ...f, topics: null })],
  ['topics-five', (p, f) => ({ ...f, topics: [null, null, null, null, p.pick(p.pool.denseTopics)] })],
  ['topics-five-nulls', (_p, f) => ({ ...f, topics: [null, null, null, null, null] })],
  ['topics-deep', (p, f) => ({ ...f, topics: [[[p.pick(p.pool.denseTopics)]]] })],
  ['block-decimal-string', (p) => ({ fromBlock: String(p.pool.lastBlock - 10), toBlock: String(p.pool.lastBlock) })],
  ['block-number-type', (p) => ({ fromBlock: p.pool.lastBlock - 10, toBlock: p.pool.lastBlock })],
  ['block-leading-zero', (p) => ({ fromBlock: `0x0${(p.pool.lastBlock - 10).toString(16)}`, toBlock: toHex(p.pool.lastBlock) })],
  ['block-not-hex', () => ({ fromBlock: '0xg1', toBlock: 'latest' })],
  ['block-unknown-tag', () => ({ fromBlock: 'newest', toBlock: 'latest' })],
  ['block-too-big', () => ({ fromBlock: '0x1', toBlock: '0x20000000000000' })],
  ['from-after-to', (p) => {
    const b = p.int(p.pool.firstBlock + 10, p.pool.lastBlock);
    return { fromBlock: toHex(b), toBlock: toHex(b - p.int(1, 10)) };
  }],
  ['from-after-to-tags', () => ({ fromBlock: 'latest', toBlock: 'earliest' })],
  ['blockHash-with-range', (p) => ({ blockHash: p.pick(p.pool.blockHashes).hash, fromBlock: toHex(p.pool.lastBlock - 5) })],
  ['blockHash-with-to', (p) => ({ blockHash: p.pick(p.pool.blockHashes).hash, toBlock: 'latest' })],
  ['blockHash-short', (p) => ({ blockHash: `0x${p.hex(40)}` })],
  ['blockHash-48-bytes', (p) => ({ blockHash: `0x${p.hex(96)}` })],
  ['unknown-key', (_p, f) => ({ ...f, limit: 10 })],
  ['range-over-limit', (p) => {
    const from = p.int(p.pool.firstBlock, p.pool.lastBlock - 3000);
    return { fromBlock: toHex(from), toBlock: toHex(from + p.int(1001, 2500)) };
  }],
  ['range-over-7-days', (p) => ({ fromBlock: toHex(p.pool.firstBlock), toBlock: toHex(p.pool.lastBlock), address: p.pick(p.pool.denseAddresses) })],
];

/** Params arrays that are wrong as a whole. */
const PARAMS_FAULTS: readonly (readonly [string, (p: Picker, f: Filter) => unknown])[] = [
  ['params-empty', () => []],
  ['params-missing', () => undefined],
  ['params-object', (_p, f) => f],
  ['params-null-filter', () => [null]],
  ['params-string-filter', () => ['latest']],
  ['params-extra', (_p, f) => [f, true]],
];

/** eth_getLogs params with one fault. */
export function invalidGetLogsParams(p: Picker): Shaped<unknown> {
  const base = validFilter(p).value;
  if (p.chance(0.2)) {
    const [name, make] = p.pick(PARAMS_FAULTS);
    return { value: make(p, base), shape: name };
  }
  const [name, make] = p.pick(FAULTS);
  return { value: [make(p, base)], shape: name };
}
