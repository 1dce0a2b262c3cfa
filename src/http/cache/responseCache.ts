/**
 * The response cache: an in-process tier in front of a shared Redis tier, and in-process
 * coalescing of identical requests. A request is answered from the first tier that holds it; a
 * Redis hit is copied into the in-process tier for the time it has left; a miss runs the route
 * once, however many identical requests arrive meanwhile, on one server with the bound of its
 * settled bound read there first (settledCompute.ts), and stores the answer in both tiers for its lifetime
 * (lifetime.ts). A replayed answer is the stored one with max-age counted down.
 */
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/db.ts';
import type { Answer, ComputedAnswer } from '../answer/answer.ts';
import { decodeAnswer, encodeAnswer } from './redisCodec.ts';
import { type CacheableRequest, keyNamespace, requestIdentity, sharedKey } from './key.ts';
import { countDown, lifetimeMs } from './lifetime.ts';
import { type ContentEncoding, compressBody } from '../compression.ts';
import { type LocalEntry, LocalTier } from './localTier.ts';
import { type CacheMetrics, type CacheMetricsFamily, cacheMetrics } from './metrics.ts';
import { type Based, indexedThrough, settledCompute } from './settledCompute.ts';
import { RedisTier } from './redisTier.ts';

/** An answer the in-process tier holds, as it is served now, and the route that computed it. */
export interface LocalHit {
  answer: Answer;
  route: string;
  /** The tier's entry and its key (for compressedBody). */
  readonly entry: LocalEntry;
  readonly identity: string;
}

export interface ResponseCache {
  /**
   * The answer to `request`: from a tier, or from `compute` (whose errors reach the caller
   * uncached). `route`, the template of the route that answers, is kept with the in-process copy
   * when the request's path alone leads to it (see localHit).
   */
  answer(request: CacheableRequest, compute: () => Promise<ComputedAnswer>, route?: string): Promise<Answer>;
  /**
   * The in-process tier's answer to the request of `identity` (key.ts requestIdentity) when it
   * holds one with its route. Nothing is counted:
   * the caller counts the hit (metrics.hit('local')) when it serves the answer; otherwise the
   * request takes its route, which looks again.
   */
  localHit(identity: string): LocalHit | undefined;
  /** The body of `entry` compressed with `encoding` (compressBody), made once and kept with the entry. */
  compressedBody(entry: LocalHit, encoding: ContentEncoding): Buffer;
  readonly metrics: CacheMetrics;
  /** Resolves when every store started so far has finished (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface ResponseCacheOptions {
  config: Config;
  db: Db;
  logger: Logger;
  version: string;
  /** Where there are several networks: the metrics all their caches share, and this cache's network. */
  family?: CacheMetricsFamily;
  network?: string | undefined;
}

export function createResponseCache({ config, db, logger, version, family, network }: ResponseCacheOptions): ResponseCache {
  const settings = config.cache;
  const namespace = keyNamespace(config, version);
  const local = settings.localMaxBytes > 0 ? new LocalTier(settings.localMaxBytes) : undefined;
  // the tier reports failed commands to the metrics, which read the tier's state when scraped
  const redis: RedisTier = new RedisTier(config, logger, () => metrics.redisError());
  const metrics = family ? family.member(network, local, redis) : cacheMetrics(local, redis);
  const computeSettled = settledCompute(db);
  const inFlight = new Map<string, Promise<Answer>>();
  const stores = new Set<Promise<void>>();

  const replay = (answer: Answer, remainingMs: number): Answer => {
    const cacheControl = countDown(answer.cacheControl, remainingMs);
    return cacheControl === answer.cacheControl ? answer : { ...answer, cacheControl };
  };

  async function lookUpOrCompute(identity: string, compute: () => Promise<ComputedAnswer>, route: string | undefined): Promise<Answer> {
    const key = sharedKey(namespace, identity);
    if (redis.isUp) {
      const stored = await redis.get(key);
      const answer = stored && decodeAnswer(stored.value);
      if (stored && answer) {
        metrics.hit('redis');
        local?.set(identity, answer, stored.remainingMs, route);
        return replay(answer, stored.remainingMs);
      }
      metrics.miss('redis');
    }
    let computed: Based<ComputedAnswer>;
    try {
      computed = await computeSettled(compute);
    } catch (err) {
      metrics.computed('no');
      throw err;
    }
    const { settledAfter, ...computedAnswer } = computed.value;
    const header = config.additions.enabled ? indexedThrough(computed.basis) : undefined;
    const answer: Answer = header === undefined ? computedAnswer : { ...computedAnswer, indexedThrough: header };
    const lifetime = lifetimeMs(computed.value, settings.immutableMaxAgeMs, computed.basis);
    metrics.computed(lifetime.ms === 0 ? 'no' : lifetime.settled ? 'immutable' : 'max-age');
    if (lifetime.ms > 0) {
      local?.set(identity, answer, lifetime.ms, route);
      // a store never throws (redis.set counts its own failures): an encoding that failed only loses this copy
      const store = encodeAnswer(answer, settings.compress).then(
        (value) => redis.set(key, value, lifetime.ms),
        (err: unknown) => logger.warn({ err }, 'response cache: answer not stored in Redis'),
      );
      stores.add(store);
      void store.finally(() => stores.delete(store));
    }
    return answer;
  }

  return {
    metrics,
    localHit(identity) {
      const entry = local?.get(identity);
      if (entry?.route === undefined) return undefined;
      return { answer: replay(entry.answer, entry.expiresAt - Date.now()), route: entry.route, entry, identity };
    },
    compressedBody({ entry, identity }, encoding) {
      const kept = entry.compressed?.[encoding];
      if (kept !== undefined) return kept;
      const made = compressBody(encoding, entry.answer.body);
      return local ? local.addCompressed(identity, entry, encoding, made) : made;
    },
    async answer(request, compute, route) {
      const identity = requestIdentity(request);
      const entry = local?.get(identity);
      if (entry) {
        metrics.hit('local');
        return replay(entry.answer, entry.expiresAt - Date.now());
      }
      if (local) metrics.miss('local');
      const pending = inFlight.get(identity);
      if (pending) {
        metrics.coalesced();
        return pending;
      }
      const work = lookUpOrCompute(identity, compute, route).finally(() => inFlight.delete(identity));
      inFlight.set(identity, work);
      return work;
    },
    async idle() {
      while (stores.size > 0) await Promise.all([...stores]);
    },
    async close() {
      await this.idle();
      await redis.close();
    },
  };
}
