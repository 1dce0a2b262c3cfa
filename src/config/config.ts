import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseDurationNs } from './duration.ts';

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

/** Defaults of the reference (mirror node REST API 0.129) for the keys that apply here. */
export function defaultTree(): Tree {
  return {
    port: 5551,
    log: { level: 'info' },
    db: {
      host: '127.0.0.1',
      port: 5432,
      name: 'mirror_node',
      username: 'mirror_api',
      password: 'mirror_api_pass',
      pool: { maxConnections: 10, statementTimeout: 20000, connectionTimeout: 20000 },
    },
    response: { limit: { default: 25, max: 100 }, includeHostInLink: false, compression: true },
    query: {
      maxRepeatedQueryParameters: 100,
      maxTimestampRange: '7d',
      maxRecordFileCloseInterval: '10s',
      bindTimestampRange: false,
      maxTransactionsTimestampRange: '60d',
      maxTransactionConsensusTimestampRange: '35m',
    },
  };
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

/** Sets `value` at the path whose segments match existing keys case-insensitively (env var style). */
function setCaseInsensitive(tree: Tree, segments: string[], value: string): boolean {
  let node: Tree = tree;
  for (let i = 0; i < segments.length; i++) {
    const wanted = segments[i]!.toLowerCase();
    const key = Object.keys(node).find((k) => k.toLowerCase() === wanted);
    if (key === undefined) return false;
    if (i === segments.length - 1) {
      if (isTree(node[key])) return false;
      node[key] = value;
      return true;
    }
    const child = node[key];
    if (!isTree(child)) return false;
    node = child;
  }
  return false;
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
      mergeTree(rest, pick(doc, [prefix, 'mirror', 'rest']));
      mergeTree(common, pick(doc, [prefix, 'mirror', 'common']));
    }
  }

  for (const prefix of [...PREFIXES].reverse()) {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      const upper = prefix.toUpperCase();
      if (name.startsWith(`${upper}_MIRROR_REST_`)) {
        const segments = name.slice(`${upper}_MIRROR_REST_`.length).split('_');
        if (!setCaseInsensitive(rest, segments, value)) {
          throw new ConfigError(`Unknown configuration variable ${name}`);
        }
      } else if (name.startsWith(`${upper}_MIRROR_COMMON_`)) {
        const segments = name.slice(`${upper}_MIRROR_COMMON_`.length).split('_');
        if (!setCaseInsensitive(common, segments, value)) {
          throw new ConfigError(`Unknown configuration variable ${name}`);
        }
      }
    }
  }
  mergeTree(rest, overrides);
  if (env.LOG_LEVEL) mergeTree(rest, { log: { level: env.LOG_LEVEL } });
  const databaseUrl = env.DATABASE_URL || undefined;
  const config = validate(rest, common, databaseUrl);
  config.externalDatabase = databaseUrl !== undefined || JSON.stringify(rest.db) !== defaultDb;
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

function duration(tree: Tree, path: string): [string, bigint] {
  const value = text(tree, path);
  const ns = parseDurationNs(value);
  if (ns === undefined || ns <= 0n) {
    throw new ConfigError(`Invalid configuration: ${path} must be a positive duration such as 7d, 10s or 500ms, got ${JSON.stringify(value)}`);
  }
  return [value, ns];
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
