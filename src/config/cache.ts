/** The response cache's settings (cache.response.*) and its Redis connection (the reference's redis.*). */
import type { Tree } from './tree.ts';
import { bool, duration, integer, text } from './values.ts';

export interface ResponseCacheSettings {
  enabled: boolean;
  /** Store answers gzipped in Redis (from 150 bytes on, as the reference). */
  compress: boolean;
  immutableMaxAgeMs: number;
  localMaxBytes: number;
  timeoutMs: number;
  keyPrefix: string;
}

export interface RedisSettings {
  enabled: boolean;
  uri: string;
  commandTimeout: number;
  connectTimeout: number;
  maxBackoff: number;
  maxRetriesPerRequest: number;
  sentinel: { enabled: boolean; host: string; port: number; name: string; password: string };
}

export const cacheSettings = (rest: Tree): ResponseCacheSettings => ({
  enabled: bool(rest, 'cache.response.enabled') && bool(rest, 'redis.enabled'),
  compress: bool(rest, 'cache.response.compress'),
  immutableMaxAgeMs: Number(duration(rest, 'cache.response.immutableMaxAge')[1] / 1_000_000n),
  localMaxBytes: integer(rest, 'cache.response.localMaxBytes', 0, 2 ** 40),
  timeoutMs: integer(rest, 'cache.response.timeout', 1, 3_600_000),
  keyPrefix: text(rest, 'cache.response.keyPrefix'),
});

export const redisSettings = (rest: Tree): RedisSettings => ({
  enabled: bool(rest, 'redis.enabled'),
  uri: text(rest, 'redis.uri'),
  commandTimeout: integer(rest, 'redis.commandTimeout', 1, 3_600_000),
  connectTimeout: integer(rest, 'redis.connectTimeout', 1, 3_600_000),
  maxBackoff: integer(rest, 'redis.maxBackoff', 1, 3_600_000),
  maxRetriesPerRequest: integer(rest, 'redis.maxRetriesPerRequest', 0, 1000),
  sentinel: {
    enabled: bool(rest, 'redis.sentinel.enabled'),
    host: text(rest, 'redis.sentinel.host'),
    port: integer(rest, 'redis.sentinel.port', 1, 65535),
    name: text(rest, 'redis.sentinel.name'),
    password: text(rest, 'redis.sentinel.password'),
  },
});
