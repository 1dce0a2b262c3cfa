import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { keyWarning } from './keys.ts';
import { REFERENCE_REST_DEFAULTS } from './reference.ts';
import { SERVICE_DEFAULTS, type ServerSettings, serverSettings } from './service.ts';
import { type DbTls, type HeaderSettings, type LogLevel, dbTls, headers, logLevel, upstreamUrl } from './sections.ts';
import { type Tree, isTree, leafPaths, mergeTree, pick, setCaseInsensitive } from './tree.ts';
import { type NetworkName, networkTree, readNetworks, setNetworkVariable } from './networks.ts';
import { ConfigError, bool, duration, integer, text } from './values.ts';
import { type ReplicaSettings, primaryHost, replicaSettings } from './replicas.ts';
import { type RpcSettings, rpcSettings } from './rpc.ts';
import { type RedisSettings, type ResponseCacheSettings, cacheSettings, redisSettings } from './cache.ts';
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
    pool: { maxConnections: number; statementTimeout: number; connectionTimeout: number; batchStatements: number };
    /** db.tls.*: TLS to PostgreSQL, with the PEM text of the files that ca, cert and key name (read at load). */
    tls: DbTls;
    /** db.replicas.* (with db.host first when db.primaryHost moved the primary): reads go there (src/db/replicas.ts). */
    replicas: ReplicaSettings;
    /** db.newestFirstSpan (ns): where a newest-first page of a partitioned table splits (src/contracts/common/newestFirst.ts). */
    newestFirstSpanNs: bigint;
  };
  /** Where requests for routes this service does not serve go (upstream.*); none when url is undefined. */
  upstream: { url: URL | undefined; timeoutMs: number };
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
  headers: HeaderSettings;
  /** This service's additions to the reference's interface (additions.enabled, see service.ts). */
  additions: { enabled: boolean; filters: boolean; ndjson: { maxItems: number; pageSize: number } };
  /** Live logs (live.*, see service.ts). */
  live: { tickMs: number; maxSubscribers: number; heartbeatMs: number; maxBacklogNs: bigint };
  /** Streamed answers' limits (streams.*, see service.ts). */
  streams: { maxPerClient: number; maxReaders: number; maxConcurrentReads: number; maxBufferedBytes: number };
  /** This service's own keys (server.*, see service.ts). */
  server: ServerSettings;
  /** The JSON-RPC endpoint (rpc.*, see rpc.ts). */
  rpc: RpcSettings;
  /** The response cache (cache.response.*; it is on when cache.response.enabled and redis.enabled). */
  cache: ResponseCacheSettings;
  /** The Redis connection of the response cache (the reference's redis.*). */
  redis: RedisSettings;
  /** networks.*: several networks, each with its own database, chosen by the request's Host (networks.ts); undefined: one. */
  networks?: { defaultNetwork: NetworkName | undefined; served: Array<{ name: NetworkName; config: Config }> };
  /** Keys that were accepted but have no effect here, and keys nobody knows (with a suggestion). */
  warnings: string[];
}

export { ConfigError } from './values.ts';

/** Defaults of the reference (mirror node REST API 0.129): every key of its REST configuration; and this service's own keys. */
export function defaultTree(): Tree {
  return mergeTree(structuredClone(REFERENCE_REST_DEFAULTS), structuredClone(SERVICE_DEFAULTS));
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
  // db.replicas alone does not say where the primary is: it is left out of the comparison
  const connectionKeys = (db: unknown) => JSON.stringify({ ...(db as Tree), replicas: undefined });
  const defaultDb = connectionKeys(rest.db);

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
      if (name.startsWith(`${upper}_MIRROR_REST_NETWORKS_`)) {
        const networks = (rest.networks = isTree(rest.networks) ? rest.networks : {});
        if (!setNetworkVariable(networks, name.slice(`${upper}_MIRROR_REST_NETWORKS_`.length).split('_'), value, rest)) {
          warnings.push(`unknown configuration variable ${name} (networks: <NETWORK>_URL, <NETWORK>_DB_..., <NETWORK>_CACHE_KEYPREFIX, DEFAULT)`);
        }
      } else if (name.startsWith(`${upper}_MIRROR_REST_`)) {
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
  if (env.UPSTREAM_URL) mergeTree(rest, { upstream: { url: env.UPSTREAM_URL } });
  if (env.TRUST_PROXY) mergeTree(rest, { server: { trustProxy: env.TRUST_PROXY } });
  if (env.DATABASE_REPLICAS) mergeTree(rest, { db: { replicas: { hosts: env.DATABASE_REPLICAS } } });
  const databaseUrl = env.DATABASE_URL || undefined;
  const networks = isTree(rest.networks) ? readNetworks(rest.networks) : undefined;
  delete rest.networks;
  const config = validate(rest, common, databaseUrl);
  if (networks) {
    config.networks = {
      defaultNetwork: networks.defaultNetwork,
      served: networks.networks.map((network) => {
        const own = validate(networkTree(rest, network), common, network.url);
        own.externalDatabase = true;
        own.cache.keyPrefix = network.keyPrefix ?? `${config.cache.keyPrefix}${network.name}:`;
        return { name: network.name, config: own };
      }),
    };
  }
  config.externalDatabase = databaseUrl !== undefined || connectionKeys(rest.db) !== defaultDb;
  if (config.db.replicas.hosts.length > 0 && !config.externalDatabase) {
    throw new ConfigError('Invalid configuration: db.replicas needs PostgreSQL as the primary: set DATABASE_URL or the db.host keys');
  }
  if (databaseUrl !== undefined && primaryHost(rest) !== '') {
    warnings.push('ignored: db.primaryHost, because DATABASE_URL names the primary (list replicas in db.replicas.hosts)');
  }
  config.warnings = warnings;
  return config;
}

/**
 * db.host and db.replicas.*: where db.primaryHost is set (and DATABASE_URL is not), the primary is
 * there and db.host, the reference's read endpoint, becomes the first replica.
 */
function hostAndReplicas(rest: Tree, databaseUrl: string | undefined): { host: string; replicas: ReplicaSettings } {
  const port = integer(rest, 'db.port', 1, 65535);
  const host = text(rest, 'db.host');
  const replicas = replicaSettings(rest, port);
  const primary = primaryHost(rest);
  if (primary === '' || databaseUrl !== undefined) return { host, replicas };
  if (primary !== host) replicas.hosts.unshift({ host, port });
  return { host: primary, replicas };
}

function validate(rest: Tree, common: Tree, databaseUrl: string | undefined): Config {
  const { host, replicas } = hostAndReplicas(rest, databaseUrl);
  const [maxTimestampRange, maxTimestampRangeNs] = duration(rest, 'query.maxTimestampRange');
  const [maxRecordFileCloseInterval, maxRecordFileCloseIntervalNs] = duration(rest, 'query.maxRecordFileCloseInterval');
  const config: Config = {
    port: integer(rest, 'port', 0, 65535),
    databaseUrl,
    externalDatabase: false,
    db: {
      host,
      port: integer(rest, 'db.port', 1, 65535),
      name: text(rest, 'db.name'),
      username: text(rest, 'db.username'),
      password: text(rest, 'db.password'),
      pool: {
        maxConnections: integer(rest, 'db.pool.maxConnections', 1, 1000),
        statementTimeout: integer(rest, 'db.pool.statementTimeout', 1, 3_600_000),
        connectionTimeout: integer(rest, 'db.pool.connectionTimeout', 1, 3_600_000),
        batchStatements: integer(rest, 'db.pool.batchStatements', 1, 1000),
      },
      tls: dbTls(rest),
      replicas,
      newestFirstSpanNs: duration(rest, 'db.newestFirstSpan')[1],
    },
    upstream: { url: upstreamUrl(rest), timeoutMs: integer(rest, 'upstream.timeout', 1, 3_600_000) },
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
    additions: {
      enabled: bool(rest, 'additions.enabled'),
      filters: bool(rest, 'additions.enabled') && bool(rest, 'additions.filters'),
      ndjson: {
        maxItems: integer(rest, 'additions.ndjson.maxItems', 1, 1_000_000_000),
        pageSize: integer(rest, 'additions.ndjson.pageSize', 1, 10_000),
      },
    },
    live: {
      tickMs: integer(rest, 'live.tickMs', 10, 60_000),
      maxSubscribers: integer(rest, 'live.maxSubscribers', 0, 10_000_000),
      heartbeatMs: integer(rest, 'live.heartbeatMs', 100, 3_600_000),
      maxBacklogNs: duration(rest, 'live.maxBacklog')[1],
    },
    streams: {
      maxPerClient: integer(rest, 'streams.maxPerClient', 0, 1_000_000),
      maxReaders: integer(rest, 'streams.maxReaders', 0, 1_000_000),
      maxConcurrentReads: integer(rest, 'streams.maxConcurrentReads', 1, 1000),
      maxBufferedBytes: integer(rest, 'streams.maxBufferedBytes', 16384, 1_073_741_824),
    },
    server: serverSettings(rest),
    rpc: rpcSettings(rest),
    cache: cacheSettings(rest),
    redis: redisSettings(rest),
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
