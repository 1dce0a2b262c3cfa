/**
 * eth_getLogs's filter as the relay v0.69.3 resolves it, answered from the database: the block range
 * (or block hash) becomes a consensus timestamp range through record_file, exactly as the relay's
 * /blocks look-ups make it (first block's start to last block's end), with the relay's checks in
 * its order (toBlock without fromBlock; then, for two different blocks, the timestamp range limit,
 * fromBlock after toBlock, the block range limit without a single address); a block that does not
 * exist answers no logs. The addresses become contract ids
 * (src/contracts/common/resolve.ts), the topics the listing's topic values (OR within a position).
 */
import type { Config } from '../config/config.ts';
import { type Block, blockByHashPrefix, blockByNumber, newestBlock } from '../db/blocks.ts';
import type { Db } from '../db/db.ts';
import { contractListingRef, parseContractPath } from '../http/request/contract.ts';
import { resolveContracts } from '../contracts/common/resolve.ts';
import { TOPIC_KEYS, type TopicKey, topicValues } from '../contracts/logs/params.ts';
import type { Filter } from '../http/request/filters.ts';
import { rpcErrors } from './errors.ts';
import { quantity } from './logView.ts';
import type { LogFilterParams } from './params.ts';

/** A search the database answers: its consensus range, contracts, topics and the relay's order. */
export interface LogSearch {
  from: bigint;
  to: bigint;
  /** How many blocks the range holds (its pages read their blocks by the blocks' average length). */
  blocks: bigint;
  /** undefined: every contract. */
  contractIds?: bigint[];
  /** Each contract's place among the addresses (logs of one timestamp are in that order, as the relay merges them). */
  addressOrder?: Map<string, number>;
  topics: Map<TopicKey, Buffer[]>;
}

const LATEST_TAGS = ['latest', 'pending', 'safe', 'finalized'];
const isLatest = (tag: string | undefined | null): boolean => tag === undefined || tag === null || LATEST_TAGS.includes(tag);
const ZERO_ADDRESS = /^0x0{40}$/i;

async function blockAt(db: Db, tag: string): Promise<Block | undefined> {
  if (tag === 'latest') return newestBlock(db);
  if (tag === 'earliest') return blockByNumber(db, 0n);
  return blockByNumber(db, BigInt(tag));
}

/** The newest block's number, or the relay's error when there is none. */
export async function latestNumber(db: Db): Promise<bigint> {
  const latest = await newestBlock(db);
  if (latest === undefined) throw rpcErrors.latestBlock();
  return BigInt(latest.number);
}

/** A consensus timestamp as the mirror node's /blocks write it: seconds.nanoseconds. */
const blockTimestamp = (ns: bigint): string => `${ns / 1_000_000_000n}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;

/** The limits of a range (rpc.blockRangeLimit, rpc.timestampRangeLimit: seconds, 0 none). */
export interface RangeLimits {
  blockRangeLimit: number;
  timestampRangeLimit: number;
}

/** A read's value, or its error thrown. */
function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

/** The consensus range of a filter, or undefined when a block it names does not exist (no logs). */
export async function consensusRangeOf(db: Db, filter: LogFilterParams, limits: RangeLimits): Promise<Pick<LogSearch, 'from' | 'to' | 'blocks'> | undefined> {
  if (filter.blockHash) {
    const block = await blockByHashPrefix(db, filter.blockHash.slice(2).toLowerCase());
    return block && { from: BigInt(block.consensus_start), to: BigInt(block.consensus_end), blocks: 1n };
  }
  const toBlock = isLatest(filter.toBlock) ? 'latest' : filter.toBlock!;
  const fromBlock = isLatest(filter.fromBlock) ? 'latest' : filter.fromBlock!;
  // the reads of the relay's checks go out together (one round trip with db.pool.batchStatements) and
  // are looked at in its order: the newest block (for a numbered toBlock), the first block, the last
  const [latest, firstRead, lastRead] = await Promise.allSettled([
    toBlock === 'latest' ? undefined : latestNumber(db),
    blockAt(db, fromBlock),
    fromBlock === toBlock ? undefined : blockAt(db, toBlock),
  ]);
  if (toBlock !== 'latest' && Number(toBlock) !== Number(settled(latest)) && !filter.fromBlock) throw rpcErrors.missingFromBlock();
  const first = settled(firstRead);
  if (first === undefined) return undefined;
  const from = BigInt(first.consensus_start);
  if (fromBlock === toBlock) return { from, to: BigInt(first.consensus_end), blocks: 1n };
  const last = settled(lastRead);
  if (last === undefined) return undefined;
  const to = BigInt(last.consensus_end);
  const [firstNumber, lastNumber] = [BigInt(first.number), BigInt(last.number)];
  // the relay subtracts the /blocks timestamps as numbers of seconds, before it compares the blocks
  const [fromTimestamp, toTimestamp] = [blockTimestamp(from), blockTimestamp(to)];
  if (limits.timestampRangeLimit > 0 && Number(toTimestamp) - Number(fromTimestamp) > limits.timestampRangeLimit) {
    throw rpcErrors.timestampRangeTooLarge(limits.timestampRangeLimit, quantity(firstNumber), fromTimestamp, quantity(lastNumber), toTimestamp);
  }
  if (firstNumber > lastNumber) throw rpcErrors.invalidBlockRange();
  const single = Array.isArray(filter.address) ? filter.address.length === 1 : typeof filter.address === 'string' && filter.address !== '';
  if (!single && lastNumber - firstNumber > BigInt(limits.blockRangeLimit)) throw rpcErrors.rangeTooLarge(limits.blockRangeLimit);
  return { from, to, blocks: lastNumber - firstNumber + 1n };
}

/** The topic values of a filter's `topics` (null: any; an array: any of its values, so any when one is null). */
export function topicsOf(topics: LogFilterParams['topics']): Map<TopicKey, Buffer[]> {
  const filters: Filter[] = [];
  (topics ?? []).slice(0, TOPIC_KEYS.length).forEach((topic, n) => {
    if (topic === null || topic === undefined) return;
    const values = Array.isArray(topic) ? (topic.flat(Infinity as 1) as unknown[]) : [topic];
    if (values.includes(null)) return;
    for (const value of values) if (typeof value === 'string') filters.push({ key: TOPIC_KEYS[n]!, operator: 'eq', value });
  });
  return topicValues(filters);
}

/** The contract ids of the filter's addresses, each with its place among them (undefined: no address filter). */
async function contractsOf(db: Db, config: Config, address: LogFilterParams['address']): Promise<{ ids: bigint[]; order: Map<string, number> } | undefined> {
  if (address === undefined) return undefined;
  const addresses = (Array.isArray(address) ? address.flat() : [address]).filter((a) => !ZERO_ADDRESS.test(a));
  // every address's look-up goes out at once; their ids are taken in the addresses' order
  const resolved = await Promise.all(addresses.map((a) => resolveContracts(db, [contractListingRef(parseContractPath(a.toLowerCase()), config)])));
  const ids: bigint[] = [];
  const order = new Map<string, number>();
  for (const id of resolved.flat()) {
    if (!order.has(id.toString())) order.set(id.toString(), order.size);
    if (!ids.includes(id)) ids.push(id);
  }
  return { ids, order };
}

/** The filter as a search, or undefined when it matches no log whatever the database holds. */
export async function logSearchOf(db: Db, config: Config, filter: LogFilterParams): Promise<LogSearch | undefined> {
  // the blocks and the addresses are read together; the range's errors come first, as the relay's
  const [rangeRead, contractsRead] = await Promise.allSettled([consensusRangeOf(db, filter, config.rpc), contractsOf(db, config, filter.address)]);
  const range = settled(rangeRead);
  if (range === undefined) return undefined;
  const search: LogSearch = { ...range, topics: topicsOf(filter.topics) };
  const contracts = settled(contractsRead);
  if (contracts !== undefined) {
    if (contracts.ids.length === 0) return undefined;
    search.contractIds = contracts.ids;
    search.addressOrder = contracts.order;
  }
  return search;
}
