/**
 * Networks chosen by host (issue 28): the configuration of networks.*, and a two-network server under
 * concurrent load whose every answer comes from its own network's data, with the response cache on
 * (no cross-talk in caches, pools or memos); a host naming a network not served gets 404.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';
import type { Db } from '../../../src/db/db.ts';
import { createEmbeddedDb } from '../../../src/db/embedded.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { hostLabel, requestHost } from '../../../src/http/request/host.ts';
import { appOn, testConfig } from '../../support/app.ts';
import { random } from '../../../bench/lib/random.ts';

test('networks.*: YAML-shaped keys and environment variables, each network its own database and cache prefix', () => {
  const config = loadConfig(
    {
      HIERO_MIRROR_REST_NETWORKS_DEFAULT: 'testnet',
      HIERO_MIRROR_REST_NETWORKS_TESTNET_URL: 'postgres://u:p@testnet-db:5432/mirror_node',
      HIERO_MIRROR_REST_NETWORKS_PREVIEWNET_DB_HOST: 'previewnet-db',
      HIERO_MIRROR_REST_NETWORKS_PREVIEWNET_DB_POOL_MAXCONNECTIONS: '3',
      HIERO_MIRROR_REST_NETWORKS_MAINNETPUBLIC_URL: 'postgres://u:p@mainnet-db/mirror_node',
      HIERO_MIRROR_REST_NETWORKS_MAINNETPUBLIC_CACHE_KEYPREFIX: 'mp:',
    },
    '/nonexistent',
  );
  assert.equal(config.networks?.defaultNetwork, 'testnet');
  const byName = Object.fromEntries(config.networks!.served.map((n) => [n.name, n.config]));
  assert.deepEqual(Object.keys(byName).sort(), ['mainnet-public', 'previewnet', 'testnet']);
  assert.equal(byName.testnet!.databaseUrl, 'postgres://u:p@testnet-db:5432/mirror_node');
  assert.equal(byName.previewnet!.db.host, 'previewnet-db');
  assert.equal(byName.previewnet!.db.pool.maxConnections, 3);
  assert.equal(byName.testnet!.db.pool.maxConnections, 10);
  assert.equal(byName.testnet!.cache.keyPrefix, 'cqs:testnet:');
  assert.equal(byName['mainnet-public']!.cache.keyPrefix, 'mp:');
  assert.deepEqual(config.warnings, []);
  // without networks: exactly as before
  assert.equal(loadConfig({}, '/nonexistent').networks, undefined);
  for (const [env, message] of [
    [{ HIERO_MIRROR_REST_NETWORKS_DEVNET_URL: 'postgres://x/y' }, /names no network to serve/],
    [{ HIERO_MIRROR_REST_NETWORKS_DEFAULT: 'mainnet', HIERO_MIRROR_REST_NETWORKS_TESTNET_URL: 'postgres://x/y' }, /networks.default is mainnet, which is not served/],
    [{ HIERO_MIRROR_REST_NETWORKS_TESTNET_CACHE_KEYPREFIX: 'x' }, /needs its database/],
  ] as const) {
    try {
      const loaded = loadConfig(env, '/nonexistent');
      assert.match(loaded.warnings.join('\n'), message);
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.match((err as Error).message, message);
    }
  }
});

test('the network of a host: its first label, the port and case aside; an absolute-form target\'s authority before Host; X-Forwarded-Host (its last value) only behind a trusted proxy', () => {
  const labelOf = (url: string, headers: Record<string, string>, trustProxy = false) => hostLabel(requestHost({ url, headers }, trustProxy));
  assert.equal(labelOf('/', { host: 'TestNet.Example.org:8080' }), 'testnet');
  assert.equal(labelOf('http://PreviewNet.x:1/api', { host: 'testnet.x' }), 'previewnet');
  assert.equal(labelOf('/', { host: 'localhost', 'x-forwarded-host': 'previewnet.example.org' }), 'localhost');
  assert.equal(labelOf('/', { host: 'localhost', 'x-forwarded-host': 'a, previewnet.example.org' }, true), 'previewnet');
  assert.equal(labelOf('http://testnet.x/', { host: 'localhost', 'x-forwarded-host': 'previewnet.example.org' }, true), 'previewnet');
  assert.equal(requestHost({ headers: {} }, false), '');
});

let testnet: Db;
let previewnet: Db;
let app: FastifyInstance;
const expected = new Map<string, { testnet: string; previewnet: string }>();

before(async () => {
  testnet = (await createEmbeddedDb()).db;
  previewnet = (await createEmbeddedDb()).db;
  await migrate(testnet);
  await migrate(previewnet);
  await seedDemo(testnet, { scale: 0.05, seed: 1 });
  await seedDemo(previewnet, { scale: 0.05, seed: 2 });
  const config = testConfig({ HIERO_MIRROR_REST_CACHE_RESPONSE_ENABLED: 'true', HIERO_MIRROR_REST_REDIS_URI: 'redis://127.0.0.1:1' });
  const testnetConfig = { ...config, cache: { ...config.cache, keyPrefix: 'cqs:testnet:' } };
  const previewnetConfig = { ...config, cache: { ...config.cache, keyPrefix: 'cqs:previewnet:' } };
  app = appOn(testnet, {
    config,
    networks: [
      { name: 'testnet', config: testnetConfig, db: testnet },
      { name: 'previewnet', config: previewnetConfig, db: previewnet },
    ],
    defaultNetwork: 'testnet',
  });
  // what each network answers alone
  const single = { testnet: appOn(testnet), previewnet: appOn(previewnet) };
  const urls = [
    '/api/v1/contracts/results?limit=5',
    '/api/v1/contracts/results/logs?limit=5',
    '/api/v1/contracts?limit=3',
    '/api/v1/contracts/0.0.2001/results?limit=3',
    '/api/v1/contracts/0.0.2003/results/logs?limit=4&order=asc',
    '/api/v1/contracts/0.0.2001/state?limit=2',
  ];
  for (const url of urls) {
    const [a, b] = await Promise.all([single.testnet.inject(url), single.previewnet.inject(url)]);
    expected.set(url, { testnet: a.body, previewnet: b.body });
  }
  await single.testnet.close();
  await single.previewnet.close();
});
after(async () => {
  await app?.close();
  await testnet?.close();
  await previewnet?.close();
});

test('under concurrent load on two networks, every answer is its own network\'s (cache on, before routing and after)', async () => {
  const differing = [...expected.entries()].filter(([, e]) => e.testnet !== e.previewnet);
  assert.ok(differing.length >= 4, 'the two demo networks differ');
  const next = random(28);
  const hosts = [
    ['testnet.mirror.example', 'testnet'],
    ['previewnet.mirror.example', 'previewnet'],
    ['localhost:5551', 'testnet'],
    ['127.0.0.1', 'testnet'],
  ] as const;
  const requests = Array.from({ length: 400 }, () => {
    const [url, answers] = differing[Math.floor(next() * differing.length)]!;
    const [host, network] = hosts[Math.floor(next() * hosts.length)]!;
    return { url, host, want: answers[network] };
  });
  const answers = await Promise.all(requests.map(({ url, host }) => app.inject({ method: 'GET', url, headers: { host } })));
  answers.forEach((res, i) => assert.equal(res.body, requests[i]!.want, `${requests[i]!.host} ${requests[i]!.url}`));
});

test('a host naming a network not served: 404 naming the served networks; readiness reports each network', async () => {
  const res = await app.inject({ method: 'GET', url: '/api/v1/contracts/results', headers: { host: 'mainnet.mirror.example' } });
  assert.equal(res.statusCode, 404);
  assert.equal(res.body, '{"_status":{"messages":[{"message":"Network mainnet is not served here; the networks served: testnet, previewnet"}]}}');
  const ready = await app.inject('/health/readiness');
  assert.equal(ready.body, '{"status":"ok","networks":{"testnet":"ok","previewnet":"ok"}}');
  const metrics = await app.inject('/metrics');
  assert.match(metrics.body, /db_pool_connections\{state="total",network="previewnet"\}/);
  assert.match(metrics.body, /http_requests_total\{method="GET",route="\/api\/v1\/contracts\/results",status="404",network=""\}/);
});

test('the OpenAPI document lists one server per network', async () => {
  const document = JSON.parse((await app.inject('/api/v1/docs/openapi.json')).body) as { servers: Array<{ url: string }> };
  assert.deepEqual(document.servers.map((s) => s.url), ['{scheme}://testnet.{domain}', '{scheme}://previewnet.{domain}']);
});
