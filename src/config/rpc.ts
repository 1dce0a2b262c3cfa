/**
 * rpc.*: the JSON-RPC 2.0 endpoint (`POST /rpc` and a WebSocket on the same path, src/rpc): its
 * limits, with the Hiero JSON-RPC relay's defaults where the relay has the same setting.
 */
import { ConfigError, integer, pathValue, text } from './values.ts';
import type { Tree } from './tree.ts';

export const RPC_DEFAULTS: Tree = {
  /** Serve `/rpc` at all. */
  enabled: true,
  /** The chain id (decimal or 0x-hex); '' = by network: mainnet 295, testnet 296, previewnet 297, else 298. */
  chainId: '',
  /** Bytes of one HTTP request body or WebSocket message; more is refused (HTTP 413, WebSocket close 1009). */
  maxBodyBytes: 1048576,
  /** Requests in one HTTP batch (the relay's BATCH_REQUESTS_MAX_SIZE). */
  maxBatchSize: 100,
  /** Addresses in one eth_getLogs / eth_newFilter / eth_subscribe filter (the relay has no limit); counted before any is read. */
  maxAddresses: 1000,
  /** Values of one topic position's OR-list (the mirror node's query.maxRepeatedQueryParameters, where the relay's look-up fails). */
  maxTopicValues: 100,
  /** Nesting depth of a request's JSON; deeper is a parse error. */
  maxJsonDepth: 32,
  /** Blocks one eth_getLogs spans without a single address (the relay's ETH_GET_LOGS_BLOCK_RANGE_LIMIT). */
  blockRangeLimit: 1000,
  /**
   * Seconds from the first block's start to the last block's end one eth_getLogs spans, with or
   * without addresses (the relay's fixed 7 days: the mirror node's timestamp range limit); 0: no limit.
   */
  timestampRangeLimit: 604800,
  /** Logs read from the database per page of a streamed eth_getLogs answer. */
  pageSize: 1000,
  /** Pages of eth_getLogs answers read at once per process and database, after each answer's first; by turns (src/rpc/pageGate.ts). */
  pageReads: 4,
  /** How long a filter lives after its last use, ms (the relay's FILTER_TTL). */
  filterTtl: 300000,
  /** Filters one process keeps when they live in process (no Redis); when full a new one is refused (-32005), none is dropped. */
  maxFilters: 10000,
  /** Filters one client address has installed at once (the peer's address, or with server.trustProxy the forwarded one); more are refused (-32005). */
  maxFiltersPerClient: 100,
  ws: {
    /** WebSocket connections per process; more are refused (HTTP 503 on the upgrade). */
    maxConnections: 1000,
    /** WebSocket connections per client address (the relay's WS_CONNECTION_LIMIT_PER_IP). */
    maxConnectionsPerClient: 10,
    /** Subscriptions per connection (the relay's WS_SUBSCRIPTION_LIMIT). */
    maxSubscriptionsPerConnection: 10,
    /** Subscriptions per process. */
    maxSubscriptions: 10000,
    /** Requests in one WebSocket batch (the relay's WS_BATCH_REQUESTS_MAX_SIZE). */
    maxBatchSize: 20,
    /** Bytes waiting for a client that does not read; beyond, its connection is closed (1008). */
    maxBufferedBytes: 1048576,
    /** Requests of one connection answered at once; while that many are, the connection is not read. */
    maxInFlight: 4,
    /** A connection without any message for this long is closed, ms (the relay's WS_MAX_INACTIVITY_TTL); 0: never. */
    maxInactivity: 300000,
  },
};

export interface RpcSettings {
  enabled: boolean;
  /** undefined: by network (chainIdOf). */
  chainId: bigint | undefined;
  maxBodyBytes: number;
  maxBatchSize: number;
  maxAddresses: number;
  maxTopicValues: number;
  maxJsonDepth: number;
  blockRangeLimit: number;
  /** Seconds; 0: no limit. */
  timestampRangeLimit: number;
  pageSize: number;
  pageReads: number;
  filterTtlMs: number;
  maxFilters: number;
  maxFiltersPerClient: number;
  ws: {
    maxConnections: number;
    maxConnectionsPerClient: number;
    maxSubscriptionsPerConnection: number;
    maxSubscriptions: number;
    maxBatchSize: number;
    maxBufferedBytes: number;
    maxInFlight: number;
    maxInactivityMs: number;
  };
}

function chainId(tree: Tree): bigint | undefined {
  const value = text(tree, 'rpc.chainId').trim();
  if (value === '') return undefined;
  if (!/^(?:0x[0-9a-fA-F]{1,15}|\d{1,18})$/.test(value) || BigInt(value) === 0n) {
    throw new ConfigError(`Invalid configuration: rpc.chainId must be a positive integer (decimal or 0x-hex), got ${JSON.stringify(value)}`);
  }
  return BigInt(value);
}

export function rpcSettings(tree: Tree): RpcSettings {
  const enabled = pathValue(tree, 'rpc.enabled');
  if (enabled !== true && enabled !== false && enabled !== 'true' && enabled !== 'false') {
    throw new ConfigError(`Invalid configuration: rpc.enabled must be true or false, got ${JSON.stringify(enabled)}`);
  }
  return {
    enabled: enabled === true || enabled === 'true',
    chainId: chainId(tree),
    maxBodyBytes: integer(tree, 'rpc.maxBodyBytes', 1024, 1_073_741_824),
    maxBatchSize: integer(tree, 'rpc.maxBatchSize', 1, 100_000),
    maxAddresses: integer(tree, 'rpc.maxAddresses', 1, 1_000_000),
    maxTopicValues: integer(tree, 'rpc.maxTopicValues', 1, 1_000_000),
    maxJsonDepth: integer(tree, 'rpc.maxJsonDepth', 2, 1000),
    blockRangeLimit: integer(tree, 'rpc.blockRangeLimit', 1, 1_000_000_000),
    timestampRangeLimit: integer(tree, 'rpc.timestampRangeLimit', 0, 1_000_000_000_000),
    pageSize: integer(tree, 'rpc.pageSize', 1, 100_000),
    pageReads: integer(tree, 'rpc.pageReads', 1, 100_000),
    filterTtlMs: integer(tree, 'rpc.filterTtl', 1000, 86_400_000),
    maxFilters: integer(tree, 'rpc.maxFilters', 1, 10_000_000),
    maxFiltersPerClient: integer(tree, 'rpc.maxFiltersPerClient', 1, 10_000_000),
    ws: {
      maxConnections: integer(tree, 'rpc.ws.maxConnections', 0, 1_000_000),
      maxConnectionsPerClient: integer(tree, 'rpc.ws.maxConnectionsPerClient', 0, 1_000_000),
      maxSubscriptionsPerConnection: integer(tree, 'rpc.ws.maxSubscriptionsPerConnection', 1, 100_000),
      maxSubscriptions: integer(tree, 'rpc.ws.maxSubscriptions', 1, 10_000_000),
      maxBatchSize: integer(tree, 'rpc.ws.maxBatchSize', 1, 100_000),
      maxBufferedBytes: integer(tree, 'rpc.ws.maxBufferedBytes', 16384, 1_073_741_824),
      maxInFlight: integer(tree, 'rpc.ws.maxInFlight', 1, 1000),
      maxInactivityMs: integer(tree, 'rpc.ws.maxInactivity', 0, 86_400_000),
    },
  };
}

/** The chain id of a network's endpoint: configured, else by the network's name (mainnet 295, testnet 296, previewnet 297, 298 otherwise). */
export function chainIdOf(settings: RpcSettings, network: string | undefined): bigint {
  if (settings.chainId !== undefined) return settings.chainId;
  if (network === 'mainnet' || network === 'mainnet-public') return 295n;
  if (network === 'testnet') return 296n;
  if (network === 'previewnet') return 297n;
  return 298n;
}
