import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

test('server.*: defaults, environment variables, TRUST_PROXY; no warnings for these keys', () => {
  const defaults = loadConfig({}, '/nonexistent');
  assert.deepEqual(defaults.server, {
    trustProxy: false,
    maxConnections: 1000,
    maxConnectionsPerClient: 500,
    listenBacklog: 4096,
    managementPort: 0,
    headersTimeoutMs: 10000,
    keepAliveTimeoutMs: 72000,
    shutdownGraceMs: 25_000,
    stallTimeoutMs: 30_000,
    stallMinRate: 100,
    pressure: { maxEventLoopDelayMs: 1000, maxHeapUsedPercent: 90, maxPoolWaiting: 0, maxQueuedRequests: 1000, adaptive: true, maxQueueWaitMs: 5000, maxShedDelayMs: 1000 },
  });
  const set = loadConfig(
    {
      HIERO_MIRROR_REST_SERVER_MAXCONNECTIONS: '50',
      HIERO_MIRROR_REST_SERVER_LISTENBACKLOG: '1024',
      HIERO_MIRROR_REST_SERVER_PRESSURE_MAXPOOLWAITING: '7',
      HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'false',
      HIERO_MIRROR_REST_SERVER_PRESSURE_MAXQUEUEWAIT: '250',
      HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0',
      HIERO_MIRROR_REST_SERVER_SHUTDOWNGRACE: '40000',
      TRUST_PROXY: 'true',
    },
    '/nonexistent',
  );
  assert.equal(set.server.maxConnections, 50);
  assert.equal(set.server.listenBacklog, 1024);
  assert.equal(set.server.pressure.maxPoolWaiting, 7);
  assert.deepEqual([set.server.pressure.adaptive, set.server.pressure.maxQueueWaitMs, set.server.pressure.maxShedDelayMs], [false, 250, 0]);
  assert.equal(set.server.shutdownGraceMs, 40_000);
  assert.equal(set.server.trustProxy, true);
  assert.deepEqual(set.warnings, []);
  assert.equal(loadConfig({ HIERO_MIRROR_REST_SERVER_TRUSTPROXY: 'true' }, '/nonexistent').server.trustProxy, true);
});

test('the shutdown grace follows the statement timeout and is never below it', () => {
  const longer = loadConfig({ HIERO_MIRROR_REST_DB_POOL_STATEMENTTIMEOUT: '60000' }, '/nonexistent');
  assert.equal(longer.server.shutdownGraceMs, 65_000);
  assert.throws(
    () => loadConfig({ HIERO_MIRROR_REST_SERVER_SHUTDOWNGRACE: '5000' }, '/nonexistent'),
    (e: unknown) => e instanceof ConfigError && /server\.shutdownGrace must be 0 .* or at least db\.pool\.statementTimeout \(20000\), got 5000/.test((e as Error).message),
  );
  assert.throws(() => loadConfig({ TRUST_PROXY: 'yes' }, '/nonexistent'), /server\.trustProxy must be true or false/);
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_ADAPTIVE: 'maybe' }, '/nonexistent'), /server\.pressure\.adaptive must be true or false/);
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '-1' }, '/nonexistent'), /server\.pressure\.maxShedDelay must be an integer/);
});
