/**
 * Every key of the reference's REST configuration (`hiero.mirror.rest.*`, mirror node 0.129
 * application.yml) with its default, and which of them this service honours. An operator's
 * existing file or environment passes: honoured keys take effect, the others are ignored with a
 * warning, and a key the reference does not know either is a warning naming the closest one.
 */

type Tree = Record<string, unknown>;

const CACHE_CONTROL = (seconds: number) => ({ 'cache-control': `public, max-age=${seconds}` });

/** The reference's defaults for `hiero.mirror.rest`. */
export const REFERENCE_REST_DEFAULTS: Tree = {
  cache: {
    entityId: { maxAge: 1800, maxSize: 100000 },
    response: { enabled: false, compress: true },
    token: { maxSize: 100000 },
  },
  db: {
    host: '127.0.0.1',
    name: 'mirror_node',
    password: 'mirror_api_pass',
    pool: { connectionTimeout: 20000, maxConnections: 10, statementTimeout: 20000 },
    port: 5432,
    primaryHost: '',
    sslMode: 'DISABLE',
    tls: { ca: '', cert: '', enabled: false, key: '' },
    username: 'mirror_api',
  },
  log: { level: 'info' },
  metrics: {
    enabled: true,
    config: {
      authentication: false,
      durationBuckets: [25, 100, 250, 500],
      password: 'password',
      requestSizeBuckets: [],
      responseSizeBuckets: [100, 250, 500, 1000],
      swaggerOnly: true,
      username: 'metrics',
      uriPath: '/swagger',
    },
    ipMetrics: false,
  },
  network: { unreleasedSupplyAccounts: [], currencyFormat: 'BOTH' },
  openapi: { specFileName: 'openapi', swaggerUIPath: 'docs', validation: { enabled: false } },
  port: 5551,
  query: {
    bindTimestampRange: false,
    maxRecordFileCloseInterval: '10s',
    maxRepeatedQueryParameters: 100,
    maxScheduledTransactionConsensusTimestampRange: '89285m',
    maxTimestampRange: '7d',
    maxTransactionConsensusTimestampRange: '35m',
    maxTransactionsTimestampRange: '60d',
    strictTimestampParam: true,
    topicMessageLookup: false,
    transactions: { precedingTransactionTypes: [11, 15] },
  },
  redis: {
    commandTimeout: 10000,
    connectTimeout: 10000,
    enabled: true,
    maxBackoff: 128000,
    maxMemory: '750Mb',
    maxMemoryPolicy: 'allkeys-lfu',
    maxRetriesPerRequest: 1,
    sentinel: { enabled: false, host: '127.0.0.1', name: 'mirror', password: '', port: 26379 },
    uri: 'redis://127.0.0.1:6379',
  },
  response: {
    compression: true,
    headers: {
      default: { 'cache-control': 'public, max-age=1', 'content-type': 'application/json; charset=utf-8' },
      path: {
        '/api/v1/contracts': CACHE_CONTROL(10),
        '/api/v1/contracts/:contractId/results/:consensusTimestamp([0-9.]+)': CACHE_CONTROL(600),
        '/api/v1/contracts/results': CACHE_CONTROL(10),
        '/api/v1/contracts/results/logs': CACHE_CONTROL(10),
        '/api/v1/contracts/results/:transactionIdOrHash': CACHE_CONTROL(600),
        '/api/v1/contracts/results/:transactionIdOrHash/actions': CACHE_CONTROL(600),
      },
    },
    includeHostInLink: false,
    limit: { default: 25, max: 100, tokenBalance: { multipleAccounts: 50, singleAccount: 1000 } },
  },
  stateproof: {
    addressBookHistory: false,
    enabled: false,
    streams: {
      accessKey: null,
      bucketName: null,
      cloudProvider: 'S3',
      endpointOverride: null,
      gcpProjectId: null,
      httpOptions: { connectTimeout: 2000, timeout: 5000 },
      maxRetries: 3,
      network: 'DEMO',
      region: 'us-east-1',
      secretKey: null,
    },
  },
};

/**
 * Key paths (and every key below them) that take effect here; every other reference key is
 * accepted and ignored. Maps whose keys are free (headers by path) count as honoured as a whole.
 */
export const HONOURED = [
  'cache.response.compress',
  'cache.response.enabled',
  'db.host',
  'db.name',
  'db.password',
  'db.pool',
  'db.port',
  'db.primaryHost',
  'db.tls',
  'db.username',
  'log.level',
  'port',
  'query.bindTimestampRange',
  'query.maxRecordFileCloseInterval',
  'query.maxRepeatedQueryParameters',
  'query.maxTimestampRange',
  'query.maxTransactionConsensusTimestampRange',
  'query.maxTransactionsTimestampRange',
  'redis.commandTimeout',
  'redis.connectTimeout',
  'redis.enabled',
  'redis.maxBackoff',
  'redis.maxRetriesPerRequest',
  'redis.sentinel',
  'redis.uri',
  'response.compression',
  'response.headers',
  'response.includeHostInLink',
  'response.limit.default',
  'response.limit.max',
] as const;

/** Subtrees whose keys are data (any name is valid), not configuration keys. */
export const FREE_MAPS = ['response.headers.default', 'response.headers.path', 'network.unreleasedSupplyAccounts', 'networks'] as const;
