import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
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
  after(() => rmSync(dir, { recursive: true, force: true }));
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

test("an operator's reference configuration passes: honoured, ignored with a warning, or unknown with a suggestion", () => {
  const env = {
    HIERO_MIRROR_REST_METRICS_ENABLED: 'false',
    HIERO_MIRROR_REST_REDIS_ENABLED: 'false',
    HIERO_MIRROR_REST_REDIS_MAXMEMORY: '1Gb',
    HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true',
    HIERO_MIRROR_REST_LOG_LEVEL: 'debug',
    HIERO_MIRROR_REST_RESPONSE_LIMIT_MAXX: '5',
  };
  const c = loadConfig(env, '/nonexistent');
  assert.equal(c.log.level, 'debug');
  assert.ok(c.warnings.includes('ignored: not used by this service: redis.maxMemory (HIERO_MIRROR_REST_REDIS_MAXMEMORY)'), c.warnings.join('\n'));
  assert.ok(!c.warnings.some((w) => w.includes('redis.enabled')), c.warnings.join('\n'));
  assert.ok(!c.warnings.some((w) => w.includes('db.tls')), 'db.tls.* is honoured');
  assert.equal(c.db.tls.enabled, true);
  assert.ok(c.warnings.some((w) => w.startsWith('unknown configuration key response.limit.maxx') && w.endsWith('did you mean response.limit.max?')), c.warnings.join('\n'));
  assert.ok(!c.warnings.some((w) => w.includes('log.level')));

  const dir = mkdtempSync(join(tmpdir(), 'cqs-config-'));
  try {
    writeFileSync(
      join(dir, 'application.yml'),
      [
        'hiero:',
        '  mirror:',
        '    rest:',
        '      respnse:',
        '        limit:',
        '          max: 50',
        '      query:',
        '        maxTimestampRange: 1h30m',
        '        topicMessageLookup: true',
        '      response:',
        '        headers:',
        '          default:',
        '            cache-control: public, max-age=3',
        '          path:',
        '            /api/v1/contracts: { "cache-control": "public, max-age=30" }',
      ].join('\n'),
    );
    const f = loadConfig({}, dir);
    assert.equal(f.query.maxTimestampRangeNs, 5_400_000_000_000n);
    assert.equal(f.query.maxTimestampRange, '1h30m');
    assert.equal(f.response.limit.max, 100, 'a misspelt key changes nothing');
    assert.ok(f.warnings.some((w) => w.startsWith('unknown configuration key respnse.limit.max') && w.endsWith('did you mean response.limit.max?')));
    assert.ok(f.warnings.some((w) => w.startsWith('ignored: not used by this service: query.topicMessageLookup')));
    assert.equal(f.headers.defaultCacheControl, 'public, max-age=3');
    assert.equal(f.headers.byPath['/api/v1/contracts'], 'public, max-age=30');
    assert.equal(f.headers.byPath['/api/v1/contracts/results/logs'], 'public, max-age=10');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_QUERY_MAXTIMESTAMPRANGE: 'soon' }, '/nonexistent'), /query\.maxTimestampRange must be a positive duration/);
});
