/**
 * Keys of this service only, not the reference's: how the HTTP server protects itself (proxies it
 * trusts, the connection cap, load shedding, the shutdown grace). They live beside the reference's
 * keys, under `hiero.mirror.rest.server` (environment: `HIERO_MIRROR_REST_SERVER_*`), and are
 * validated with them in config.ts.
 */

import { REPLICA_DEFAULTS } from './replicas.ts';
import { RPC_DEFAULTS } from './rpc.ts';
import { ConfigError, bool, integer } from './values.ts';

type Tree = Record<string, unknown>;

export const SERVICE_DEFAULTS: Tree = {
  /** Read replicas (src/config/replicas.ts, src/db/replicas.ts): hosts, the lag that takes one out, the check interval. */
  db: {
    replicas: { ...REPLICA_DEFAULTS },
    /**
     * Statements of one event-loop turn sent on one connection in one write, at most this many
     * (src/db/statementBatch.ts); 1: every statement on a connection of its own.
     */
    pool: { batchStatements: 8 },
    /**
     * How far before the newest record file a newest-first page of a time-partitioned table (the v2
     * layout) reads first, before the rest of its range (src/contracts/common/newestFirst.ts): a duration.
     */
    newestFirstSpan: '7d',
  },
  /**
   * The upstream mirror node that answers the routes served nowhere here (src/http/server/plugins/upstream.ts);
   * also HIERO_MIRROR_REST_UPSTREAM_URL, and UPSTREAM_URL as a shortcut for upstream.url.
   */
  upstream: { timeout: 20000, url: '' },
  /** The response cache's own settings, beside the reference's cache.response keys. */
  cache: {
    response: {
      /** How long the response cache keeps an answer that can no longer change (a duration). */
      immutableMaxAge: '1d',
      /** Bytes of answers the in-process tier holds in front of Redis; 0 turns that tier off. */
      localMaxBytes: 32 * 1024 * 1024,
      /** The longest a request waits on Redis, in ms (redis.commandTimeout caps it too). */
      timeout: 100,
      /** Prefix of this service's keys in Redis (a format version and a fingerprint follow it). */
      keyPrefix: 'cqs:',
    },
  },
  /**
   * This service's additions to the reference's interface (docs/compatibility.md, "Additions").
   * `enabled`: whole listings as NDJSON (asked for with Accept) and the Indexed-Through header; off,
   * every answer is the reference's. `filters`: the `address` filter of the logs listing and
   * `block.number` ranges on the logs and results listings; these answer requests the reference
   * rejects (400), so a drop-in leaves them off unless asked.
   */
  additions: {
    enabled: true,
    filters: false,
    /** A listing answered as NDJSON: the most items it sends, and how many each of its reads takes. */
    ndjson: { maxItems: 1_000_000, pageSize: 1000 },
  },
  /** Live logs: the logs listings as Server-Sent Events (an addition, with additions.enabled). */
  live: {
    /** How often each process reads what is new (one statement for the new record files and their logs), ms. */
    tickMs: 500,
    /** Event streams per process; more get 503. */
    maxSubscribers: 10000,
    /** A comment line at least this often (ms), so that proxies keep an idle stream open. */
    heartbeatMs: 15000,
    /** How far back a stream may start (its backlog), a duration. */
    maxBacklog: '7d',
  },
  /**
   * Streamed answers (NDJSON listings and live event streams; src/http/server/streams/limits.ts):
   * their limits per client address and per process, and the bytes one may hold for its client.
   */
  streams: {
    /** Open streams of one client address; more get 429. 0: no limit. */
    maxPerClient: 32,
    /** Streams reading stored pages at once (NDJSON answers, live backlogs), per process; more get 503. */
    maxReaders: 64,
    /** Page reads of those streams in flight at once, per process; the others wait their turn. */
    maxConcurrentReads: 4,
    /**
     * Bytes one stream may hold for its client: the pages of NDJSON answers and backlogs are sized to
     * fit, and a live stream with more than this waiting is closed as too slow.
     */
    maxBufferedBytes: 262144,
  },
  /** The JSON-RPC endpoint (`/rpc`, src/rpc; src/config/rpc.ts). */
  rpc: RPC_DEFAULTS,
  server: {
    /**
     * ms over which a client with bytes of its answer waiting must take them at stallMinRate or more
     * (read off the kernel's acknowledged bytes on Linux), else its connection is reset; 0: never.
     */
    stallTimeout: 30000,
    /** Bytes a second: the floor of that rate. */
    stallMinRate: 100,
    /** Honour X-Forwarded-Proto and X-Forwarded-Host (links with response.includeHostInLink). */
    trustProxy: false,
    /** Open connections per process; more are refused (0: no cap). */
    maxConnections: 1000,
    /**
     * Open connections of one client address per process (with trustProxy: requests in flight of one
     * forwarded client); more are refused with 429 (0: no cap). Half of maxConnections, so that one
     * address never holds every place, and above the JSON-RPC relay's 300 sockets to a mirror node.
     */
    maxConnectionsPerClient: 500,
    /**
     * Connections the kernel queues for the server to accept (listen(2)'s backlog; Linux takes at most
     * net.core.somaxconn, 4096 by default). Node's default, 511, overflows when a thousand clients
     * reconnect at once: every new connection's SYN is then dropped and retried after 1 s, 3 s, ...
     */
    listenBacklog: 4096,
    /**
     * A port of its own for the health probes and /metrics (the mirror node's management port); 0: none
     * (they are answered on the service's port, as always). src/http/server/managementListener.ts.
     */
    managementPort: 0,
    /** ms a new connection (or the next request of a kept-alive one) has to send its request line and headers; then 408. */
    headersTimeout: 10000,
    /**
     * ms an idle kept-alive connection stays open: longer than the 60 s idle timeout of common load
     * balancers; while the connections are crowded, 5 s (src/http/server/load/idleConnections.ts).
     */
    keepAliveTimeout: 72000,
    /** ms the shutdown waits for requests in flight; 0: db.pool.statementTimeout + 5000. */
    shutdownGrace: 0,
    /** Load shedding (503) while any threshold is passed; 0 turns a check off. */
    pressure: {
      /** Mean event-loop delay over the last second, ms. */
      maxEventLoopDelay: 1000,
      /** V8 heap in use, percent of its limit. */
      maxHeapUsedPercent: 90,
      /** Statements waiting for a database connection; 0: not a reason to shed (the adaptive limit is). */
      maxPoolWaiting: 0,
      /**
       * Contract requests in flight beyond the pool's connections (the limit is the pool plus this);
       * also the adaptive limit's bound. Requests, not statements: one that runs several at once
       * counts once. As many as the process's connections: the reference answers the bench mix at 256
       * connections within 5 s, so a bound below that would refuse what it serves.
       */
      maxQueuedRequests: 1000,
      /**
       * An adaptive limit on the contract requests in flight (issue 45): it starts at the fixed bound
       * and goes down while statements keep waiting longer than maxQueueWait for a database connection.
       */
      adaptive: true,
      /**
       * ms; the standing wait for a database connection (the least in a 100 ms window) above which
       * the adaptive limit goes down: half of the 10 s the JSON-RPC relay waits for a mirror node
       * (MIRROR_NODE_TIMEOUT), as a request waits about that long for each of its statements.
       */
      maxQueueWait: 5000,
      /** ms; the longest a shed answer waits for its pace (clients that retry at once); 0: at once. */
      maxShedDelay: 1000,
    },
  },
};

/** The server settings after validation (see Config.server). */
export interface ServerSettings {
  trustProxy: boolean;
  stallTimeoutMs: number;
  stallMinRate: number;
  maxConnections: number;
  maxConnectionsPerClient: number;
  listenBacklog: number;
  managementPort: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Resolved: never below db.pool.statementTimeout. */
  shutdownGraceMs: number;
  pressure: {
    maxEventLoopDelayMs: number;
    maxHeapUsedPercent: number;
    maxPoolWaiting: number;
    maxQueuedRequests: number;
    adaptive: boolean;
    maxQueueWaitMs: number;
    maxShedDelayMs: number;
  };
}

/** Added to db.pool.statementTimeout when server.shutdownGrace is 0: the watchdog's margin and the answer's way out. */
export const SHUTDOWN_MARGIN_MS = 5000;

/** The key paths of SERVICE_DEFAULTS: honoured, like the reference's keys this service applies. */
export const SERVICE_KEYS = [
  'db.replicas',
  'db.pool.batchStatements',
  'db.newestFirstSpan',
  'additions',
  'live',
  'streams',
  'upstream',
  'server',
  'rpc',
  'cache.response.immutableMaxAge',
  'cache.response.localMaxBytes',
  'cache.response.timeout',
  'cache.response.keyPrefix',
] as const;

/** server.*: this service's own keys; the shutdown grace never below the statement timeout. */
export function serverSettings(tree: Tree): ServerSettings {
  const statementTimeout = integer(tree, 'db.pool.statementTimeout', 1, 3_600_000);
  const grace = integer(tree, 'server.shutdownGrace', 0, 3_600_000);
  if (grace !== 0 && grace < statementTimeout) {
    throw new ConfigError(
      `Invalid configuration: server.shutdownGrace must be 0 (db.pool.statementTimeout + ${SHUTDOWN_MARGIN_MS} ms) or at least db.pool.statementTimeout (${statementTimeout}), got ${grace}`,
    );
  }
  return {
    trustProxy: bool(tree, 'server.trustProxy'),
    stallTimeoutMs: integer(tree, 'server.stallTimeout', 0, 3_600_000),
    stallMinRate: integer(tree, 'server.stallMinRate', 0, 1_000_000_000),
    maxConnections: integer(tree, 'server.maxConnections', 0, 1_000_000),
    maxConnectionsPerClient: integer(tree, 'server.maxConnectionsPerClient', 0, 1_000_000),
    listenBacklog: integer(tree, 'server.listenBacklog', 1, 65_535),
    managementPort: integer(tree, 'server.managementPort', 0, 65_535),
    headersTimeoutMs: integer(tree, 'server.headersTimeout', 1000, 3_600_000),
    keepAliveTimeoutMs: integer(tree, 'server.keepAliveTimeout', 1, 3_600_000),
    shutdownGraceMs: grace || statementTimeout + SHUTDOWN_MARGIN_MS,
    pressure: {
      maxEventLoopDelayMs: integer(tree, 'server.pressure.maxEventLoopDelay', 0, 3_600_000),
      maxHeapUsedPercent: integer(tree, 'server.pressure.maxHeapUsedPercent', 0, 100),
      maxPoolWaiting: integer(tree, 'server.pressure.maxPoolWaiting', 0, 1_000_000),
      maxQueuedRequests: integer(tree, 'server.pressure.maxQueuedRequests', 0, 1_000_000),
      adaptive: bool(tree, 'server.pressure.adaptive'),
      maxQueueWaitMs: integer(tree, 'server.pressure.maxQueueWait', 1, 3_600_000),
      maxShedDelayMs: integer(tree, 'server.pressure.maxShedDelay', 0, 60_000),
    },
  };
}
