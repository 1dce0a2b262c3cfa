import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import parseDuration from 'parse-duration';
import { FREE_MAPS, HONOURED, REFERENCE_REST_DEFAULTS } from './reference.ts';
import { SERVICE_KEYS, SERVICE_REST_DEFAULTS } from './service.ts';

/** Service configuration. Keys mirror the reference's `hiero.mirror.rest.*` / `hedera.mirror.rest.*` layout. */
export interface Config {
  port: number;
  /** When set, used instead of the db.* connection keys. */
  databaseUrl: string | undefined;
  /** True when DATABASE_URL or any db.* connection key was configured: serve that PostgreSQL, not the embedded one. */
  externalDatabase: boolean;
  db: {
    host: string;
    port: number;
    name: string;
    username: string;
    password: string;
    pool: { maxConnections: number; statementTimeout: number; connectionTimeout: number };
  };
  response: {
    limit: { default: number; max: number };
    includeHostInLink: boolean;
    compression: boolean;
  };
  query: {
    maxRepeatedQueryParameters: number;
    /** The configured text (it appears verbatim in an error message), e.g. "7d". */
    maxTimestampRange: string;
    maxTimestampRangeNs: bigint;
    maxRecordFileCloseInterval: string;
    maxRecordFileCloseIntervalNs: bigint;
    /** Bind an open timestamp range of the network-wide listings to [first transaction, now]. */
    bindTimestampRange: boolean;
    /** Widest bound range of bindTimestampRange (60d). */
    maxTransactionsTimestampRangeNs: bigint;
    /** How long after its valid start a transaction may reach consensus (35m): the transaction id lookup window. */
    maxTransactionConsensusTimestampRangeNs: bigint;
  };
  common: { shard: bigint; realm: bigint };
  /** pino's level for the reference's `log.level` (or LOG_LEVEL). */
  log: { level: LogLevel };
  /** cache-control of successful answers by the reference's route pattern (response.headers). */
  headers: { defaultCacheControl: string; byPath: Record<string, string> };
  /** The response cache (cache.response.*; it is on when cache.response.enabled and redis.enabled). */
  cache: ResponseCacheSettings;
  /** The Redis connection of the response cache (the reference's redis.*). */
  redis: RedisSettings;
  /** Keys that were accepted but have no effect here, and keys nobody knows (with a suggestion). */
  warnings: string[];
}

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

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** The reference's level names (log4js), pino's, and winston's `verbose`, to pino's levels. */
const LOG_LEVELS: Record<string, LogLevel> = {
  all: 'trace',
  trace: 'trace',
  verbose: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
  mark: 'fatal',
  off: 'silent',
  silent: 'silent',
};

export class ConfigError extends Error {}

type Tree = Record<string, unknown>;

/** Defaults of the reference (mirror node REST API 0.129): every key of its REST configuration. */
export function defaultTree(): Tree {
  return mergeTree(structuredClone(REFERENCE_REST_DEFAULTS), structuredClone(SERVICE_REST_DEFAULTS));
}

const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge in the manner of lodash `merge` for plain objects: source values win, objects merge. */
export function mergeTree(target: Tree, source: Tree): Tree {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    target[key] = isTree(value) && isTree(current) ? mergeTree({ ...current }, value) : value;
  }
  return target;
}

function pick(tree: unknown, path: string[]): Tree {
  let node = tree;
  for (const part of path) {
    if (!isTree(node)) return {};
    node = node[part];
  }
  return isTree(node) ? node : {};
}

/**
 * Sets `value` at the path whose segments match existing keys case-insensitively (env var style);
 * returns the path as written in the tree, or undefined when no such key exists.
 */
function setCaseInsensitive(tree: Tree, segments: string[], value: string): string[] | undefined {
  let node: Tree = tree;
  const path: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const wanted = segments[i]!.toLowerCase();
    const key = Object.keys(node).find((k) => k.toLowerCase() === wanted);
    if (key === undefined) return undefined;
    path.push(key);
    if (i === segments.length - 1) {
      if (isTree(node[key])) return undefined;
      node[key] = value;
      return path;
    }
    const child = node[key];
    if (!isTree(child)) return undefined;
    node = child;
  }
  return undefined;
}

/** Every leaf key path of a tree ("db.pool.maxConnections"); arrays and empty objects are leaves. */
function leafPaths(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    isTree(value) && Object.keys(value).length > 0 ? leafPaths(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

const REFERENCE_KEYS = leafPaths(defaultTree());
const covers = (prefixes: readonly string[], path: string) => prefixes.some((p) => path === p || path.startsWith(`${p}.`));

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

const closestKey = (path: string): string =>
  REFERENCE_KEYS.reduce((best, key) => (distance(path.toLowerCase(), key.toLowerCase()) < distance(path.toLowerCase(), best.toLowerCase()) ? key : best));

/** The warning a user-given key deserves, if any: ignored (the reference's, unused here) or unknown. */
function keyWarning(path: string, source: string): string | undefined {
  if (covers(FREE_MAPS, path)) return undefined;
  const known = REFERENCE_KEYS.some((key) => key === path || key.startsWith(`${path}.`) || path.startsWith(`${key}.`));
  if (!known) return `unknown configuration key ${path} (${source}); did you mean ${closestKey(path)}?`;
  if (covers(HONOURED, path) || covers(SERVICE_KEYS, path)) return undefined;
  return `ignored: not used by this service: ${path} (${source})`;
}

function findConfigFile(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const dirs = [env.CONFIG_PATH, join(cwd, 'config'), cwd].filter((d): d is string => !!d);
  const name = env.CONFIG_NAME ?? 'application';
  for (const dir of dirs) {
    for (const ext of ['yml', 'yaml']) {
      const file = resolve(dir, `${name}.${ext}`);
      if (existsSync(file)) return file;
    }
  }
  return undefined;
}

const PREFIXES = ['hiero', 'hedera'] as const;

/** Reads defaults, then application.yml, then HIERO_/HEDERA_MIRROR_* variables, then DATABASE_URL. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  overrides: Tree = {},
): Config {
  const rest = defaultTree();
  const common: Tree = { shard: 0, realm: 0 };
  const defaultDb = JSON.stringify(rest.db);

  const warnings: string[] = [];
  const file = findConfigFile(env, cwd);
  if (file) {
    let doc: unknown;
    try {
      doc = parseYaml(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new ConfigError(`Cannot read configuration file ${file}: ${(err as Error).message}`);
    }
    // hedera.* first so that the newer hiero.* names win when both are present
    for (const prefix of [...PREFIXES].reverse()) {
      const given = pick(doc, [prefix, 'mirror', 'rest']);
      for (const path of leafPaths(given)) {
        const warning = keyWarning(path, file);
        if (warning) warnings.push(warning);
      }
      mergeTree(rest, given);
      mergeTree(common, pick(doc, [prefix, 'mirror', 'common']));
    }
  }

  for (const prefix of [...PREFIXES].reverse()) {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      const upper = prefix.toUpperCase();
      if (name.startsWith(`${upper}_MIRROR_REST_`)) {
        const segments = name.slice(`${upper}_MIRROR_REST_`.length).split('_');
        const path = setCaseInsensitive(rest, segments, value);
        const warning = path ? keyWarning(path.join('.'), name) : keyWarning(segments.join('.').toLowerCase(), name);
        if (warning) warnings.push(warning);
      } else if (name.startsWith(`${upper}_MIRROR_COMMON_`)) {
        const segments = name.slice(`${upper}_MIRROR_COMMON_`.length).split('_');
        if (!setCaseInsensitive(common, segments, value)) warnings.push(`unknown configuration variable ${name} (only SHARD and REALM apply)`);
      }
    }
  }
  mergeTree(rest, overrides);
  if (env.LOG_LEVEL) mergeTree(rest, { log: { level: env.LOG_LEVEL } });
  const databaseUrl = env.DATABASE_URL || undefined;
  const config = validate(rest, common, databaseUrl);
  config.externalDatabase = databaseUrl !== undefined || JSON.stringify(rest.db) !== defaultDb;
  config.warnings = warnings;
  return config;
}

function integer(tree: Tree, path: string, min: number, max: number): number {
  const value = pathValue(tree, path);
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`Invalid configuration: ${path} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function bool(tree: Tree, path: string): boolean {
  const value = pathValue(tree, path);
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ConfigError(`Invalid configuration: ${path} must be true or false, got ${JSON.stringify(value)}`);
}

function text(tree: Tree, path: string): string {
  const value = pathValue(tree, path);
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new ConfigError(`Invalid configuration: ${path} must be a string, got ${JSON.stringify(value)}`);
}

/** A duration in the reference's syntax (parse-duration: `7d`, `10s`, `1h30m`, `500ms`, `2 days`). */
function duration(tree: Tree, path: string): [string, bigint] {
  const value = text(tree, path);
  const ms = parseDuration(value);
  if (ms === null || ms === undefined || !(ms > 0)) {
    throw new ConfigError(`Invalid configuration: ${path} must be a positive duration such as 7d, 10s or 500ms, got ${JSON.stringify(value)}`);
  }
  return [value, BigInt(Math.round(ms * 1_000_000))];
}

/** cache-control by route pattern from response.headers (default and per path). */
function headers(tree: Tree): Config['headers'] {
  const cacheControl = (value: unknown, path: string): string => {
    const header = isTree(value) ? value['cache-control'] : undefined;
    if (typeof header !== 'string') throw new ConfigError(`Invalid configuration: ${path} must set a cache-control string`);
    return header;
  };
  const byPath: Record<string, string> = {};
  const paths = pathValue(tree, 'response.headers.path');
  if (isTree(paths)) {
    for (const [route, value] of Object.entries(paths)) {
      if (isTree(value) && typeof value['cache-control'] === 'string') byPath[route] = value['cache-control'];
    }
  }
  return { defaultCacheControl: cacheControl(pathValue(tree, 'response.headers.default'), 'response.headers.default'), byPath };
}

function logLevel(tree: Tree): LogLevel {
  const value = text(tree, 'log.level');
  const level = LOG_LEVELS[value.trim().toLowerCase()];
  if (level === undefined) {
    throw new ConfigError(`Invalid configuration: log.level must be one of ${Object.keys(LOG_LEVELS).join(', ')}, got ${JSON.stringify(value)}`);
  }
  return level;
}

function pathValue(tree: Tree, path: string): unknown {
  let node: unknown = tree;
  for (const part of path.split('.')) node = isTree(node) ? node[part] : undefined;
  return node;
}

function validate(rest: Tree, common: Tree, databaseUrl: string | undefined): Config {
  const [maxTimestampRange, maxTimestampRangeNs] = duration(rest, 'query.maxTimestampRange');
  const [maxRecordFileCloseInterval, maxRecordFileCloseIntervalNs] = duration(rest, 'query.maxRecordFileCloseInterval');
  const config: Config = {
    port: integer(rest, 'port', 0, 65535),
    databaseUrl,
    externalDatabase: false,
    db: {
      host: text(rest, 'db.host'),
      port: integer(rest, 'db.port', 1, 65535),
      name: text(rest, 'db.name'),
      username: text(rest, 'db.username'),
      password: text(rest, 'db.password'),
      pool: {
        maxConnections: integer(rest, 'db.pool.maxConnections', 1, 1000),
        statementTimeout: integer(rest, 'db.pool.statementTimeout', 1, 3_600_000),
        connectionTimeout: integer(rest, 'db.pool.connectionTimeout', 1, 3_600_000),
      },
    },
    response: {
      limit: {
        default: integer(rest, 'response.limit.default', 1, 1_000_000),
        max: integer(rest, 'response.limit.max', 1, 1_000_000),
      },
      includeHostInLink: bool(rest, 'response.includeHostInLink'),
      compression: bool(rest, 'response.compression'),
    },
    query: {
      maxRepeatedQueryParameters: integer(rest, 'query.maxRepeatedQueryParameters', 1, 100_000),
      maxTimestampRange,
      maxTimestampRangeNs,
      maxRecordFileCloseInterval,
      maxRecordFileCloseIntervalNs,
      bindTimestampRange: bool(rest, 'query.bindTimestampRange'),
      maxTransactionsTimestampRangeNs: duration(rest, 'query.maxTransactionsTimestampRange')[1],
      maxTransactionConsensusTimestampRangeNs: duration(rest, 'query.maxTransactionConsensusTimestampRange')[1],
    },
    common: {
      shard: BigInt(integer(common, 'shard', 0, 1023)),
      realm: BigInt(integer(common, 'realm', 0, 65535)),
    },
    log: { level: logLevel(rest) },
    headers: headers(rest),
    cache: {
      enabled: bool(rest, 'cache.response.enabled') && bool(rest, 'redis.enabled'),
      compress: bool(rest, 'cache.response.compress'),
      immutableMaxAgeMs: Number(duration(rest, 'cache.response.immutableMaxAge')[1] / 1_000_000n),
      localMaxBytes: integer(rest, 'cache.response.localMaxBytes', 0, 2 ** 40),
      timeoutMs: integer(rest, 'cache.response.timeout', 1, 3_600_000),
      keyPrefix: text(rest, 'cache.response.keyPrefix'),
    },
    redis: {
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
    },
    warnings: [],
  };
  if (databaseUrl !== undefined) {
    try {
      new URL(databaseUrl);
    } catch {
      throw new ConfigError(`Invalid DATABASE_URL: expected postgres://user:password@host:port/database`);
    }
  }
  return config;
}
