/**
 * Conformance with the response cache on (CONFORMANCE_CACHE_REDIS=redis://host:port/db): every case
 * is answered four times, by a first app (computed), by that app again (its in-process tier,
 * through app.inject and over a socket, where hits are sent before routing) and by a second app
 * sharing Redis (the shared tier, as another process would); the replays must
 * be the first answer byte for byte, headers included, and must have come from the cache. Keys go
 * under a prefix of this run, deleted at the end.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import { cacheKey, keyNamespace } from '../../src/http/cache/key.ts';
import { parseQuery } from '../../src/http/request/query.ts';
import { rawPath, rawSearch } from '../../src/http/request/target.ts';
import { VERSION } from '../../src/version.ts';
import { appOn } from '../support/app.ts';
import { requestOverSocket } from '../support/socketRequest.ts';

/** The Redis URL of the cached conformance run, if one was asked for. */
export const cacheRedisUrl = (): string | undefined => process.env.CONFORMANCE_CACHE_REDIS || undefined;

const RUN_PREFIX = `cqs-conformance-${process.pid}-${Date.now().toString(36)}:`;
let runs = 0;

export interface CachedApps {
  first: FastifyInstance;
  /** Answers the case as the first app did: the replays, or the problems found with them. */
  replay(url: string, answer: LightMyRequestResponse): Promise<string[]>;
  /** Problems of the run as a whole (replays that did not come from the cache). */
  finish(): Promise<string[]>;
}

/** What of a response is compared: the status, the headers (in order) and the body. */
type Seen = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'rawPayload'>;

/** The headers but Date, and those of the connection that Node's server adds on a socket (inject has none). */
const headersOf = (r: Seen) => {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = r.headers;
  return JSON.stringify(rest);
};

async function counter(app: FastifyInstance, name: string): Promise<number> {
  const text = (await app.inject('/metrics')).body;
  return text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

export async function cachedApps(db: Db, config: Config, clock: (() => bigint) | undefined, redisUrl: string): Promise<CachedApps> {
  const keyPrefix = `${RUN_PREFIX}${runs++}:`;
  const cached: Config = {
    ...config,
    cache: { ...config.cache, enabled: true, keyPrefix, timeoutMs: 2000 },
    redis: { ...config.redis, uri: redisUrl, enabled: true },
  };
  const options = { config: cached, ...(clock ? { clock } : {}) };
  const first = appOn(db, options);
  const second = appOn(db, options);
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  const namespace = keyNamespace(cached, VERSION);
  const ready = async (app: FastifyInstance) => {
    for (let i = 0; i < 200 && (await counter(app, 'response_cache_redis_up')) !== 1; i++) await new Promise((r) => setTimeout(r, 10));
  };
  await Promise.all([ready(first), ready(second)]);
  let successes = 0;

  await first.listen({ host: '127.0.0.1', port: 0 });
  const firstPort = (first.server.address() as AddressInfo).port;
  const same = (what: string, a: Seen, b: Seen): string[] => {
    const problems: string[] = [];
    if (a.statusCode !== b.statusCode) problems.push(`${what}: status ${b.statusCode}, first answer ${a.statusCode}`);
    if (headersOf(a) !== headersOf(b)) problems.push(`${what}: headers ${headersOf(b)}\n  first answer ${headersOf(a)}`);
    if (!a.rawPayload.equals(b.rawPayload)) problems.push(`${what}: body differs from the first answer`);
    return problems;
  };

  return {
    first,
    async replay(url, answer) {
      const headers = { 'x-request-id': 'conformance' };
      const problems = same('cached (in-process)', answer, await first.inject({ method: 'GET', url, headers }));
      // over a socket too: the in-process tier's hits are sent before routing, a path app.inject never takes
      const overHttp = await requestOverSocket(firstPort, url, headers);
      if (overHttp) {
        const seen = { statusCode: overHttp.statusCode, headers: overHttp.headers, rawPayload: overHttp.body };
        problems.push(...same('cached (in-process, over HTTP)', answer, seen));
      }
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        successes++;
        const key = cacheKey(namespace, { path: rawPath(url), query: parseQuery(rawSearch(url)), linkBase: '' });
        for (let i = 0; i < 200 && (await redis.exists(key)) === 0; i++) await new Promise((r) => setTimeout(r, 5));
      }
      problems.push(...same('cached (Redis)', answer, await second.inject({ method: 'GET', url, headers })));
      return problems;
    },
    async finish() {
      const problems: string[] = [];
      const localHits = await counter(first, 'response_cache_hits_total{tier="local"}');
      const stored = (await counter(second, 'response_cache_computed_total{kept="max-age"}')) + (await counter(second, 'response_cache_computed_total{kept="immutable"}'));
      if (localHits < successes) problems.push(`${successes} successful answers, but only ${localHits} replays came from the in-process tier`);
      if (stored > 0) problems.push(`the second app computed ${stored} successful answers instead of reading them from Redis`);
      await Promise.all([first.close(), second.close()]);
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      return problems;
    },
  };
}
