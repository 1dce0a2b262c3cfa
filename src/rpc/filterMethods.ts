/**
 * The filter API as the relay v0.69.3 has it: eth_newFilter (fromBlock and toBlock default to
 * latest; a latest fromBlock is stored as the block number at creation), eth_newBlockFilter,
 * eth_getFilterChanges (a log filter answers its logs from the block after the last answer's last
 * log, or after the newest block when that had none; a block filter the hashes of up to 25 blocks
 * after the last one answered), eth_getFilterLogs, eth_uninstallFilter; every use refreshes the
 * filter's lifetime. A new filter counts against its client's limit (filterStore.ts).
 */
import type { Config } from '../config/config.ts';
import { type Block, blockByNumber, blocksAfter, newestBlock } from '../db/blocks.ts';
import type { Db } from '../db/db.ts';
import { type MethodAnswer, jsonAnswer } from './answer.ts';
import { rpcErrors } from './errors.ts';
import { type FilterStore, type StoredFilter, newFilterId } from './filterStore.ts';
import { type PagesProgress, logPages } from './logPages.ts';
import { latestNumber, logSearchOf } from './logSearch.ts';
import { quantity } from './logView.ts';
import { type LogFilterParams, filterParam, hexParam } from './params.ts';

/** Hashes a block filter answers per call (the mirror node's default page of /blocks). */
const BLOCKS_PER_CHANGE = 25;
const LATEST_TAGS = ['latest', 'pending', 'safe', 'finalized'];

export interface FilterContext {
  db: Db;
  config: Config;
  filters: FilterStore;
  /** The client's address (rpc.maxFiltersPerClient). */
  client: string;
}

const numberOfBlock = (block: Block | undefined): bigint | undefined => block && BigInt(block.number);

/** A block parameter's number: tags and missing values the newest block's, `earliest` block 0's (if it exists). */
async function numberOf(db: Db, tag: string): Promise<bigint | undefined> {
  if (LATEST_TAGS.includes(tag)) return numberOfBlock(await newestBlock(db));
  if (tag === 'earliest') return numberOfBlock(await blockByNumber(db, 0n));
  return BigInt(tag);
}

export async function newFilter({ db, config, filters, client }: FilterContext, params: unknown): Promise<MethodAnswer> {
  const filter = filterParam(params, config.rpc);
  const fromBlock = filter.fromBlock ?? 'latest';
  const toBlock = filter.toBlock ?? 'latest';
  const from = await numberOf(db, fromBlock);
  const to = await numberOf(db, toBlock);
  if (from !== undefined && to !== undefined && from > to) throw rpcErrors.invalidBlockRange();
  const id = newFilterId();
  const stored: StoredFilter = {
    type: 'log',
    params: {
      fromBlock: fromBlock === 'latest' ? quantity(await latestNumber(db)) : fromBlock,
      toBlock,
      ...(filter.address !== undefined ? { address: filter.address } : {}),
      ...(filter.topics !== undefined ? { topics: filter.topics } : {}),
    },
    lastQueried: null,
  };
  await filters.add(id, stored, client);
  return jsonAnswer(id);
}

export async function newBlockFilter({ db, filters, client }: FilterContext): Promise<MethodAnswer> {
  const id = newFilterId();
  await filters.add(id, { type: 'newBlock', params: { blockAtCreation: quantity(await latestNumber(db)) }, lastQueried: null }, client);
  return jsonAnswer(id);
}

/** The logs of a stored log filter from `fromBlock`, as eth_getLogs answers them; `finish` after the last page. */
async function filterLogs(context: FilterContext, filter: StoredFilter, fromBlock: string | number | undefined, finish: (progress: PagesProgress) => Promise<void>): Promise<MethodAnswer> {
  const { db, config } = context;
  const params: LogFilterParams = {
    ...(fromBlock !== undefined ? { fromBlock: typeof fromBlock === 'number' ? quantity(fromBlock) : fromBlock } : {}),
    ...(filter.params.toBlock !== undefined ? { toBlock: filter.params.toBlock } : {}),
    ...(filter.params.address !== undefined ? { address: filter.params.address } : {}),
    ...(filter.params.topics !== undefined ? { topics: filter.params.topics } : {}),
  };
  const search = await logSearchOf(db, config, params);
  const progress: PagesProgress = {};
  const pages = search === undefined ? (async function* () {})() : logPages(db, config, search, progress);
  return { pages, finish: () => finish(progress) };
}

export async function getFilterLogs(context: FilterContext, params: unknown): Promise<MethodAnswer> {
  const id = hexParam(params);
  const filter = await context.filters.get(id);
  if (filter?.type !== 'log') throw rpcErrors.filterNotFound();
  return filterLogs(context, filter, filter.params.fromBlock, () => context.filters.set(id, filter));
}

export async function getFilterChanges(context: FilterContext, params: unknown): Promise<MethodAnswer> {
  const { db, filters } = context;
  const id = hexParam(params);
  const filter = await filters.get(id);
  if (filter === undefined) throw rpcErrors.filterNotFound();
  if (filter.type === 'log') {
    return filterLogs(context, filter, filter.lastQueried || filter.params.fromBlock, async (progress) => {
      // the relay's rule: the block after the last log answered (or after the newest block)
      const last = progress.lastBlock ?? (await latestNumber(db));
      await filters.set(id, { ...filter, lastQueried: Number(last) + 1 });
    });
  }
  const after = filter.lastQueried ?? Number(filter.params.blockAtCreation);
  const blocks = await blocksAfter(db, BigInt(after), BLOCKS_PER_CHANGE);
  const last = blocks.length > 0 ? BigInt(blocks[blocks.length - 1]!.number) : await latestNumber(db);
  await filters.set(id, { ...filter, lastQueried: Number(last) });
  return jsonAnswer(blocks.map((block) => `0x${block.hash}`));
}

export async function uninstallFilter({ filters }: FilterContext, params: unknown): Promise<MethodAnswer> {
  const id = hexParam(params);
  const exists = (await filters.get(id)) !== undefined;
  if (exists) await filters.delete(id);
  return jsonAnswer(exists);
}
