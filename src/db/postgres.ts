import pg from 'pg';
import type { ConnectionOptions } from 'node:tls';
import type { Config } from '../config/config.ts';
import { type Db, poolDb } from './db.ts';
import { typeParsers } from './types.ts';
import { QueryWatchdog, WATCHDOG_MARGIN_MS } from './watchdog.ts';
import type { DbTls } from '../config/sections.ts';

export interface PostgresOptions {
  /** Full connection URL; when absent the db.* configuration keys are used. */
  url?: string | undefined;
  maxConnections: number;
  statementTimeoutMs: number;
  connectionTimeoutMs: number;
  /** Sessions refuse writes (default_transaction_read_only): what serving uses; migrate and seed do not. */
  readOnly?: boolean;
  /**
   * node-postgres' TLS options (db.tls.*); undefined leaves TLS to the URL's sslmode parameters
   * and PGSSLMODE. A URL's own ssl parameters win over these.
   */
  ssl?: ConnectionOptions | undefined;
  onError?: (err: Error) => void;
  /** plan_cache_mode of the sessions; PLAN_CACHE_MODE unless the layout needs another (src/db/layout.ts). */
  planCacheMode?: string;
  /** Statements of one event-loop turn on one connection, at most this many (src/db/statementBatch.ts); 1 or absent: none. */
  batchStatements?: number;
}

/**
 * db.tls.* as node-postgres' `ssl`, the way the reference's dbpool.js sets it: the PEM texts of
 * ca, cert and key, and `rejectUnauthorized: false` (the connection is encrypted, and the client
 * certificate is presented, but the server's certificate is not checked; a URL with
 * sslmode=verify-full&sslrootcert=... checks it).
 */
export function sslOptions(tls: DbTls): ConnectionOptions | undefined {
  if (!tls.enabled) return undefined;
  const options: ConnectionOptions = { rejectUnauthorized: false };
  if (tls.ca !== undefined) options.ca = tls.ca;
  if (tls.cert !== undefined) options.cert = tls.cert;
  if (tls.key !== undefined) options.key = tls.key;
  return options;
}

export function postgresOptionsFromConfig(config: Config): PostgresOptions {
  return {
    url: config.databaseUrl,
    maxConnections: config.db.pool.maxConnections,
    statementTimeoutMs: config.db.pool.statementTimeout,
    connectionTimeoutMs: config.db.pool.connectionTimeout,
    ssl: sslOptions(config.db.tls),
    batchStatements: config.db.pool.batchStatements,
  };
}

/**
 * How the service's sessions plan their (named, prepared) statements. Every statement is written so
 * that its generic plan is a bounded index scan whatever the parameter values (docs/performance.md
 * shows each plan); forcing it skips planning on every execution, which was a third of PostgreSQL's
 * CPU time on the bench mix, and keeps the planner from switching to another plan for particular
 * values (the primary-key walk of mirror node issue 9968).
 */
export const PLAN_CACHE_MODE = 'force_generic_plan';

/** A pool on a real PostgreSQL server (or a read replica / Citus coordinator). Connects lazily. */
export function createPostgresDb(config: Config, options: PostgresOptions = postgresOptionsFromConfig(config)): Db {
  const connection: pg.PoolConfig = options.url
    ? { connectionString: options.url }
    : {
        host: config.db.host,
        port: config.db.port,
        database: config.db.name,
        user: config.db.username,
        password: config.db.password,
      };
  const pool = new pg.Pool({
    ...connection,
    ...(options.ssl ? { ssl: options.ssl } : {}),
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    // TCP keepalive finds idle peers that are gone; a statement without an answer is the watchdog's
    // (below: node-postgres' query_timeout cost 30 % of the throughput of the bench mix).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'contract-query-service',
    // JIT compilation costs seconds on plans the planner thinks are expensive (mirror node issue 9245);
    // these short index scans never profit from it. bytea arrives as hex text, which the type
    // parsers keep as it is.
    options: `-c jit=off -c plan_cache_mode=${options.planCacheMode ?? PLAN_CACHE_MODE} -c bytea_output=hex${options.readOnly ? ' -c default_transaction_read_only=on' : ''}`,
    types: typeParsers,
    idleTimeoutMillis: 30_000,
    // Statements queued on one connection are written without waiting for the answers before them
    // (node-postgres' pipelining; each still has its own Sync, result and error). A statement planned
    // per execution sends its plan settings, itself and their reset at once: one round trip instead
    // of three (src/db/db.ts, runCustomPlanned); the statements of one event-loop turn share one
    // connection and one write (src/db/statementBatch.ts).
    pipeline: true,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (err) => options.onError?.(err));
  // A statement the server's statement_timeout cannot end (the network is cut) ends here, one margin later.
  const watchdog =
    options.statementTimeoutMs > 0 ? new QueryWatchdog(options.statementTimeoutMs + WATCHDOG_MARGIN_MS).watch(pool) : undefined;
  return poolDb('postgres', pool, async () => watchdog?.stop(), options.batchStatements ?? 1);
}
