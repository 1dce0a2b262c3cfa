/**
 * The shared tier: answers in Redis (ioredis), shared by every process that uses the same Redis and
 * key namespace. Redis is an optimisation, never a dependency: while it is not connected requests
 * skip it at once (no offline queue), a command never holds a request longer than
 * cache.response.timeout, a timed-out Redis is reconnected (and skipped until its ready check passes
 * again), and failures are logged once per change of state, not per request.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';

export type RedisState = 'connecting' | 'up' | 'down';

/** The URI with any user and password masked, for logs. */
export const sanitizeUri = (uri: string): string => uri.replace(/(?<=\/\/)[^@/]*@/, '***:***@');

/** ioredis options from the reference's redis.* keys (commands are bounded by cache.response.timeout too). */
export function redisOptions(config: Config): RedisOptions {
  const { redis } = config;
  return {
    commandTimeout: redis.commandTimeout,
    connectTimeout: redis.connectTimeout,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    keepAlive: 30_000,
    maxRetriesPerRequest: redis.maxRetriesPerRequest,
    retryStrategy: (attempt: number) => Math.min(attempt * 2000, redis.maxBackoff),
    ...(redis.sentinel.enabled
      ? {
          name: redis.sentinel.name,
          sentinelPassword: redis.sentinel.password || undefined,
          sentinels: [{ host: redis.sentinel.host, port: redis.sentinel.port }],
        }
      : {}),
  };
}

/** A value and how many ms it has left. */
export interface Stored {
  value: Buffer;
  remainingMs: number;
}

export class RedisTier {
  private readonly client: Redis;
  private state: RedisState = 'connecting';
  private readonly where: string;
  private readonly timeoutMs: number;
  private reconnecting = false;

  constructor(
    config: Config,
    private readonly logger: Logger,
    /** Told of every command that failed or timed out. */
    private readonly onError: () => void,
  ) {
    this.where = sanitizeUri(config.redis.uri);
    this.timeoutMs = Math.min(config.redis.commandTimeout, config.cache.timeoutMs);
    this.client = new Redis(config.redis.uri, redisOptions(config));
    this.client.on('ready', () => this.change('up'));
    this.client.on('error', (err: Error) => this.change('down', err));
    this.client.on('close', () => this.change('down'));
  }

  get isUp(): boolean {
    return this.state === 'up';
  }

  private change(state: RedisState, err?: Error): void {
    if (state === this.state || (state === 'down' && this.state === 'connecting' && err === undefined)) return;
    const before = this.state;
    this.state = state;
    this.reconnecting = false;
    if (state === 'up') {
      this.logger.info({ redis: this.where }, before === 'connecting' ? 'response cache: Redis connected' : 'response cache: Redis is back');
    } else {
      this.logger.warn(
        { redis: this.where, cause: err?.message ?? 'connection closed' },
        'response cache: Redis unavailable; answering without its shared tier until it is back',
      );
    }
  }

  /** The stored value and its remaining time; undefined on a miss, and when Redis is down or slow. */
  async get(key: string): Promise<Stored | undefined> {
    if (!this.isUp) return undefined;
    try {
      const [remainingMs, value] = await this.bounded(Promise.all([this.client.pttl(key), this.client.getBuffer(key)]));
      if (value === null || remainingMs <= 0) return undefined;
      return { value, remainingMs };
    } catch (err) {
      this.failed(err as Error);
      return undefined;
    }
  }

  /** Stores `value` for `ms`; failures are counted, never thrown. */
  async set(key: string, value: Buffer, ms: number): Promise<void> {
    if (!this.isUp || ms <= 0) return;
    try {
      await this.bounded(this.client.set(key, value, 'PX', ms));
    } catch (err) {
      this.failed(err as Error);
    }
  }

  /**
   * A request never waits longer than timeoutMs. When the timer fires, replies that arrived while
   * the event loop was busy (a long page serialised, a collection) are read first (setImmediate
   * runs after the I/O phase): only a Redis that really did not answer counts as slow.
   */
  private bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      const fail = () => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`));
      timer = setTimeout(() => setImmediate(fail), this.timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * A failed command: counted; a Redis that does not answer in time is reconnected, and skipped
   * until it passes the ready check again (one slow request instead of one per request).
   */
  private failed(err: Error): void {
    this.onError();
    if (!/timed out|did not answer/i.test(err.message) || this.reconnecting) return;
    this.reconnecting = true;
    this.change('down', err);
    this.reconnecting = true;
    this.client.disconnect(true);
  }

  async close(): Promise<void> {
    this.client.removeAllListeners('close');
    this.client.on('error', () => {});
    if (this.state === 'up') {
      await this.bounded(this.client.quit()).catch(() => this.client.disconnect());
    } else {
      this.client.disconnect();
    }
  }
}
