/**
 * Where filters live: in the response cache's Redis when that is configured (cache.response.enabled
 * and redis.enabled), so that a filter made through one process is read through any other; in
 * process otherwise. Each filter lives rpc.filterTtl after it was made or last used (the relay's
 * FILTER_TTL, 5 minutes), and is then removed: its memory returns.
 *
 * Bounded per client and in all, never by eviction: a client address holds at most
 * rpc.maxFiltersPerClient filters (in Redis: across the processes that share it), a process at most
 * rpc.maxFilters (in process); a new filter beyond either is refused (-32005), and a filter that is
 * still used is never dropped for another (the relay's LRU drops the oldest: another client's
 * filter then answers "Filter not found").
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { redisOptions } from '../http/cache/redisTier.ts';
import { rpcErrors } from './errors.ts';
import { Counts } from '../http/server/load/counts.ts';

/** A filter as the relay keeps one: its type, its parameters, the block it was last asked up to (and, in Redis, its client). */
export interface StoredFilter {
  type: 'log' | 'newBlock';
  params: {
    fromBlock?: string | number;
    toBlock?: string;
    address?: string | string[];
    topics?: Array<string | null | Array<string | null>>;
    blockAtCreation?: string;
  };
  lastQueried: number | null;
  client?: string;
}

export interface FilterStore {
  get(id: string): Promise<StoredFilter | undefined>;
  /** Installs a new filter for `client`: the relay's -32005 when the client or the table has its limit. */
  add(id: string, filter: StoredFilter, client: string): Promise<void>;
  /** Updates an installed filter and gives it another rpc.filterTtl; one gone meanwhile (expired, uninstalled) stays gone. */
  set(id: string, filter: StoredFilter): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** Filters installed in process; undefined where Redis keeps them. */
  readonly size: number | undefined;
  close(): Promise<void>;
}

/** A new filter id: 16 random bytes as 0x-hex (the relay's generateRandomHex). */
export const newFilterId = (): string => `0x${randomBytes(16).toString('hex')}`;

export interface FilterLimits {
  maxFilters: number;
  maxFiltersPerClient: number;
  filterTtlMs: number;
}

/** How often, at most, expired filters are swept from the process's table: each minute (sooner with a shorter TTL), and before a refusal. */
const SWEEP_EVERY_MS = 60_000;
/** A refusal sweeps first, at most once per this many ms (a client hammering a full table costs no sweep each time). */
const SWEEP_ON_REFUSAL_MS = 1000;

interface Entry {
  filter: StoredFilter;
  client: string;
  expires: number;
}

/** The filters of one process: a Map (no LRU: nothing is evicted), swept of expired filters. */
export class LocalFilters implements FilterStore {
  private readonly filters = new Map<string, Entry>();
  private readonly perClient = new Counts();
  private readonly timer: NodeJS.Timeout;
  private lastSweep = -Infinity;

  /** `now`: ms on a monotonic clock (tests pass a fake one). */
  constructor(
    private readonly limits: FilterLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.timer = setInterval(() => this.sweep(), Math.min(limits.filterTtlMs, SWEEP_EVERY_MS));
    this.timer.unref();
  }

  get size(): number {
    return this.filters.size;
  }

  /** Filters of one client installed. */
  countOf(client: string): number {
    return this.perClient.of(client);
  }

  /** Removes every expired filter; how many. */
  sweep(): number {
    const now = this.now();
    this.lastSweep = now;
    let removed = 0;
    for (const [id, entry] of this.filters) {
      if (entry.expires <= now) {
        this.remove(id, entry);
        removed++;
      }
    }
    return removed;
  }

  private remove(id: string, entry: Entry): void {
    this.filters.delete(id);
    this.perClient.remove(entry.client);
  }

  /** The entry while it lives (an expired one is removed on sight). */
  private live(id: string): Entry | undefined {
    const entry = this.filters.get(id);
    if (entry !== undefined && entry.expires <= this.now()) {
      this.remove(id, entry);
      return undefined;
    }
    return entry;
  }

  async get(id: string) {
    return this.live(id)?.filter;
  }

  async add(id: string, filter: StoredFilter, client: string) {
    const { maxFilters, maxFiltersPerClient, filterTtlMs } = this.limits;
    const full = () => this.countOf(client) >= maxFiltersPerClient || this.filters.size >= maxFilters;
    if (full() && this.now() - this.lastSweep >= SWEEP_ON_REFUSAL_MS) this.sweep();
    if (this.countOf(client) >= maxFiltersPerClient) throw rpcErrors.tooManyFilters(maxFiltersPerClient);
    if (this.filters.size >= maxFilters) throw rpcErrors.filterTableFull(maxFilters);
    this.filters.set(id, { filter, client, expires: this.now() + filterTtlMs });
    this.perClient.add(client);
  }

  async set(id: string, filter: StoredFilter) {
    const entry = this.live(id);
    if (entry === undefined) return;
    entry.filter = filter;
    entry.expires = this.now() + this.limits.filterTtlMs;
  }

  async delete(id: string) {
    const entry = this.live(id);
    if (entry === undefined) return false;
    this.remove(id, entry);
    return true;
  }

  async close() {
    clearInterval(this.timer);
    this.filters.clear();
    this.perClient.clear();
  }
}

/**
 * A new filter in Redis, at once: the client's expired filters out of its set (a sorted set of its
 * filter ids by expiry), refused (0) when it still holds its limit, else the filter stored and
 * counted. KEYS: the filter, the client's set; ARGV: now (ms), ttl (ms), limit, id, the filter's JSON.
 */
const ADD_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[2])
return 1`;

class RedisFilters implements FilterStore {
  private readonly client: Redis;
  readonly size = undefined;

  constructor(
    config: Config,
    private readonly prefix: string,
    private readonly limits: FilterLimits,
  ) {
    // commands wait for the connection (a filter must not be lost to a reconnect), bounded by redis.commandTimeout
    this.client = new Redis(config.redis.uri, { ...redisOptions(config), enableOfflineQueue: true, lazyConnect: true });
    this.client.on('error', () => {});
  }

  private key(id: string) {
    return `${this.prefix}${id}`;
  }

  /** The set of a client's filters (ids begin with 0x: no filter's key is a client's). */
  private clientKey(client: string) {
    return `${this.prefix}client:${client}`;
  }

  async get(id: string) {
    const text = await this.client.get(this.key(id));
    return text === null ? undefined : (JSON.parse(text) as StoredFilter);
  }

  async add(id: string, filter: StoredFilter, client: string) {
    const { filterTtlMs, maxFiltersPerClient } = this.limits;
    const args = [Date.now(), filterTtlMs, maxFiltersPerClient, id, JSON.stringify({ ...filter, client })];
    const added = await this.client.eval(ADD_SCRIPT, 2, this.key(id), this.clientKey(client), ...args);
    if (added !== 1) throw rpcErrors.tooManyFilters(maxFiltersPerClient);
  }

  async set(id: string, filter: StoredFilter) {
    const ttl = this.limits.filterTtlMs;
    // XX: only while it is there (one uninstalled or expired meanwhile is not made again)
    const multi = this.client.multi().set(this.key(id), JSON.stringify(filter), 'PX', ttl, 'XX');
    if (filter.client !== undefined) multi.zadd(this.clientKey(filter.client), 'XX', Date.now() + ttl, id).pexpire(this.clientKey(filter.client), ttl);
    await multi.exec();
  }

  async delete(id: string) {
    const filter = await this.get(id);
    const multi = this.client.multi().del(this.key(id));
    if (filter?.client !== undefined) multi.zrem(this.clientKey(filter.client), id);
    const results = await multi.exec();
    return Number(results?.[0]?.[1] ?? 0) > 0;
  }

  async close() {
    this.client.disconnect();
  }
}

export function filterStore(config: Config): FilterStore {
  if (config.cache.enabled) return new RedisFilters(config, `${config.cache.keyPrefix}rpc:filter:`, config.rpc);
  return new LocalFilters(config.rpc);
}
