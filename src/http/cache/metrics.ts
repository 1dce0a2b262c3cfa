/**
 * The response cache's Prometheus metrics, in a registry of their own that the scrape routes
 * (src/http/server/plugins/metrics.ts) merge in. The hit ratio is
 * (hits{local} + hits{redis} + coalesced) / (that + computed).
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { LocalTier } from './localTier.ts';
import type { RedisTier } from './redisTier.ts';

export type Tier = 'local' | 'redis';
export type Kept = 'max-age' | 'immutable' | 'no';

export interface CacheMetrics {
  registry: Registry;
  hit(tier: Tier): void;
  miss(tier: Tier): void;
  /** The request waited for the same request already being answered in this process. */
  coalesced(): void;
  /** The answer was computed by its route: kept for its max-age, kept as settled (label `immutable`), or not kept (an error, no-store). */
  computed(kept: Kept): void;
  redisError(): void;
}

/** One cache's tiers, as the gauges read them when scraped. */
interface Member {
  network: string | undefined;
  local: LocalTier | undefined;
  redis: RedisTier;
}

/**
 * The metrics of every response cache of a process: one per network where there are several, each
 * counting under its `network` label (the metric families are shared: a registry holds each name once).
 */
export class CacheMetricsFamily {
  readonly registry = new Registry();
  private readonly members: Member[] = [];
  private readonly hits: Counter;
  private readonly misses: Counter;
  private readonly coalesced: Counter;
  private readonly computed: Counter;
  private readonly errors: Counter;

  constructor(private readonly named: boolean) {
    const registers = [this.registry];
    const net = named ? ['network'] : [];
    this.hits = new Counter({ name: 'response_cache_hits_total', help: 'Answers served from a cache tier', labelNames: ['tier', ...net], registers });
    this.misses = new Counter({ name: 'response_cache_misses_total', help: 'Lookups a cache tier could not answer', labelNames: ['tier', ...net], registers });
    this.coalesced = new Counter({
      name: 'response_cache_coalesced_total',
      help: 'Requests answered by an identical request in flight in the same process',
      labelNames: net,
      registers,
    });
    this.computed = new Counter({
      name: 'response_cache_computed_total',
      help: 'Answers computed by their route (the database), by how they were kept: max-age, immutable, no',
      labelNames: ['kept', ...net],
      registers,
    });
    this.errors = new Counter({ name: 'response_cache_redis_errors_total', help: 'Redis commands that failed or timed out', labelNames: net, registers });
    const members = this.members;
    const label = (m: Member): Record<string, string> => (named ? { network: m.network ?? '' } : {});
    new Gauge({
      name: 'response_cache_redis_up',
      help: '1 while Redis is connected and ready',
      labelNames: net,
      registers,
      collect() {
        for (const m of members) this.set(label(m), m.redis.isUp ? 1 : 0);
      },
    });
    new Gauge({
      name: 'response_cache_local_bytes',
      help: 'Bytes of answers held by the in-process tier',
      labelNames: net,
      registers,
      collect() {
        for (const m of members) this.set(label(m), m.local?.bytes ?? 0);
      },
    });
  }

  /** The metrics of one cache (of `network`, where there are several). */
  member(network: string | undefined, local: LocalTier | undefined, redis: RedisTier): CacheMetrics {
    this.members.push({ network, local, redis });
    const n: Record<string, string> = this.named ? { network: network ?? '' } : {};
    return {
      registry: this.registry,
      hit: (tier) => this.hits.inc({ tier, ...n }),
      miss: (tier) => this.misses.inc({ tier, ...n }),
      coalesced: () => this.coalesced.inc(n),
      computed: (kept) => this.computed.inc({ kept, ...n }),
      redisError: () => this.errors.inc(n),
    };
  }
}

/** The metrics of a process's one response cache. */
export const cacheMetrics = (local: LocalTier | undefined, redis: RedisTier): CacheMetrics => new CacheMetricsFamily(false).member(undefined, local, redis);
