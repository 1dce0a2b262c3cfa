import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

test('defaults are the reference defaults', () => {
  const c = loadConfig({}, '/nonexistent');
  assert.equal(c.port, 5551);
  assert.deepEqual(c.response.limit, { default: 25, max: 100 });
  assert.equal(c.query.maxTimestampRange, '7d');
  assert.equal(c.query.maxTimestampRangeNs, 604_800_000_000_000n);
  assert.equal(c.externalDatabase, false);
});

test('application.yml (hiero or hedera prefix), then environment variables, then DATABASE_URL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cqs-config-'));
  writeFileSync(join(dir, 'application.yml'), 'hedera:\n  mirror:\n    rest:\n      port: 6000\n      response:\n        limit:\n          max: 50\n    common:\n      realm: 2\n');
  const c = loadConfig({ HIERO_MIRROR_REST_DB_POOL_MAXCONNECTIONS: '4', HEDERA_MIRROR_REST_QUERY_MAXTIMESTAMPRANGE: '1d' }, dir);
  assert.equal(c.port, 6000);
  assert.equal(c.response.limit.max, 50);
  assert.equal(c.common.realm, 2n);
  assert.equal(c.db.pool.maxConnections, 4);
  assert.equal(c.query.maxTimestampRangeNs, 86_400_000_000_000n);
  assert.equal(c.externalDatabase, true);
  const url = loadConfig({ DATABASE_URL: 'postgres://u@h/db' }, '/nonexistent');
  assert.equal(url.databaseUrl, 'postgres://u@h/db');
  assert.equal(url.externalDatabase, true);
});

test('invalid configuration stops with a clear message', () => {
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_PORT: 'x' }, '/nonexistent'), (e: unknown) => e instanceof ConfigError && /port must be an integer/.test((e as Error).message));
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_QUERY_MAXTIMESTAMPRANGE: 'week' }, '/nonexistent'), ConfigError);
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_NOPE: '1' }, '/nonexistent'), /Unknown configuration variable/);
  assert.throws(() => loadConfig({ DATABASE_URL: 'not a url' }, '/nonexistent'), /Invalid DATABASE_URL/);
});

test('log.level takes the reference level names (and LOG_LEVEL), any case; nonsense stops the start', () => {
  assert.equal(loadConfig({}, '/nonexistent').log.level, 'info');
  assert.equal(loadConfig({ HIERO_MIRROR_REST_LOG_LEVEL: 'DEBUG' }, '/nonexistent').log.level, 'debug');
  assert.equal(loadConfig({ HEDERA_MIRROR_REST_LOG_LEVEL: 'off' }, '/nonexistent').log.level, 'silent');
  assert.equal(loadConfig({ LOG_LEVEL: 'verbose' }, '/nonexistent').log.level, 'debug');
  assert.equal(loadConfig({ LOG_LEVEL: 'Warn' }, '/nonexistent').log.level, 'warn');
  assert.throws(() => loadConfig({ LOG_LEVEL: 'loud' }, '/nonexistent'), (e: unknown) => e instanceof ConfigError && /log\.level must be one of/.test((e as Error).message));
});
