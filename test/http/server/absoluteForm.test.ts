/**
 * A request target in absolute form names its host by its authority (RFC 9112 section 3.2.2: the
 * Host is ignored then): over real sockets, on a server of two networks by host and on one of a
 * single network, the authority picks the network (an unserved one: 404, whatever the Host says),
 * and links take an origin only with response.includeHostInLink, from that same host, never with
 * the client's port; without it they stay relative, as the reference's are.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../src/config/config.ts';
import type { Db } from '../../../src/db/db.ts';
import { createEmbeddedDb } from '../../../src/db/embedded.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { seedDemo } from '../../../src/demo/seed.ts';
import { appOn, testConfig } from '../../support/app.ts';
import { exchangeRaw, rawRequest } from '../../support/rawHttp.ts';

const URL = '/api/v1/contracts/results?limit=1';

let testnet: Db;
let previewnet: Db;
const apps: FastifyInstance[] = [];
/** Each network's answer alone, in origin form (relative links). */
const alone = { testnet: '', previewnet: '' };

async function listen(app: FastifyInstance): Promise<number> {
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

/** A server of both networks (testnet the default), or of testnet alone. */
function serve(env: Record<string, string>, networks: boolean): Promise<number> {
  const config = testConfig(env);
  const named = (name: string, db: Db) => ({ name, db, config: { ...config, cache: { ...config.cache, keyPrefix: `cqs:${name}:` } } as Config });
  const options = networks ? { config, networks: [named('testnet', testnet), named('previewnet', previewnet)], defaultNetwork: 'testnet' } : { config };
  return listen(appOn(testnet, options));
}

const get = (port: number, target: string, host: string) => exchangeRaw(port, rawRequest(target, [['Host', host]]));

/** links.next and the Link header of an answer, which must agree. */
function links(res: { body: string; headers: Record<string, string> }): string {
  const next = (JSON.parse(res.body) as { links: { next: string } }).links.next;
  assert.equal(res.headers.link, `<${next}>; rel="next"`);
  return next;
}

before(async () => {
  testnet = (await createEmbeddedDb()).db;
  previewnet = (await createEmbeddedDb()).db;
  for (const [db, seed] of [[testnet, 1], [previewnet, 2]] as const) {
    await migrate(db);
    await seedDemo(db, { scale: 0.05, seed });
  }
  for (const name of ['testnet', 'previewnet'] as const) {
    const app = appOn(name === 'testnet' ? testnet : previewnet);
    alone[name] = (await app.inject(URL)).body;
    await app.close();
  }
  assert.notEqual(alone.testnet, alone.previewnet, 'the two demo networks differ');
});
after(async () => {
  for (const app of apps) await app.close();
  await testnet?.close();
  await previewnet?.close();
});

test('two networks: the absolute-form authority picks the network, whatever the Host; an unserved one is 404', async () => {
  const port = await serve({}, true);
  const res = await get(port, `http://previewnet.x${URL}`, 'testnet.x');
  assert.equal(res.status, 200);
  assert.equal(res.body, alone.previewnet, "previewnet's data");
  assert.match(links(res), /^\/api\/v1\/contracts\/results\?limit=1&timestamp=lt:/, 'a relative link');
  assert.equal(res.headers['cache-control'], 'public, max-age=10', "the route's own, as for an origin-form target");
  assert.equal((await get(port, `HTTP://TestNet.x:8443${URL}`, 'previewnet.x')).body, alone.testnet);

  for (const host of ['testnet.x', 'previewnet.x', 'localhost']) {
    const unserved = await get(port, `http://mainnet.x${URL}`, host);
    assert.equal(unserved.status, 404, host);
    assert.equal(unserved.body, '{"_status":{"messages":[{"message":"Network mainnet is not served here; the networks served: testnet, previewnet"}]}}');
  }
  // a host naming no network is the default network's
  assert.equal((await get(port, `http://evil.example:666${URL}`, 'previewnet.x')).body, alone.testnet);
});

test('two networks with includeHostInLink: the link leads to the network that answered, at the configured port', async () => {
  const port = await serve({ HIERO_MIRROR_REST_RESPONSE_INCLUDEHOSTINLINK: 'true' }, true);
  const res = await get(port, `http://previewnet.x:666${URL}`, 'testnet.x');
  assert.equal(res.body, alone.previewnet.replace('"next":"/', '"next":"http://previewnet.x:5551/'));
  assert.match(links(res), /^http:\/\/previewnet\.x:5551\/api\/v1\/contracts\/results\?/);
  const origin = await get(port, URL, 'previewnet.x:666');
  assert.match(links(origin), /^http:\/\/previewnet\.x:5551\//, 'origin form: the Host');
  assert.equal((await get(port, `http://mainnet.x${URL}`, 'previewnet.x')).status, 404, 'never a link to an unserved network');
});

test('one network: a foreign origin in the target never reaches the links without includeHostInLink', async () => {
  const port = await serve({}, false);
  for (const target of [`http://evil.example:666${URL}`, `https://evil.example${URL}`, `http://127.0.0.1:1${URL}`]) {
    const res = await get(port, target, '127.0.0.1');
    assert.equal(res.status, 200, target);
    assert.equal(res.body, alone.testnet, target);
    assert.doesNotMatch(res.head, /evil|:666|:1\//, `${target}: no origin in any header`);
    assert.match(links(res), /^\/api\/v1\/contracts\/results\?/);
  }
});

test('one network with includeHostInLink: the origin of the host served (the target\'s, else Host), the configured port and protocol', async () => {
  const port = await serve({ HIERO_MIRROR_REST_RESPONSE_INCLUDEHOSTINLINK: 'true' }, false);
  const link = async (target: string, host: string) => links(await get(port, target, host));
  assert.match(await link(`http://mirror.example:666${URL}`, '127.0.0.1'), /^http:\/\/mirror\.example:5551\/api\//);
  assert.match(await link(`https://mirror.example${URL}`, '127.0.0.1'), /^http:\/\/mirror\.example:5551\/api\//, 'the connection is plain http');
  assert.match(await link(URL, 'mirror.example:8443'), /^http:\/\/mirror\.example:5551\/api\//);
  // no host (HTTP/1.0): a relative link, never "undefined"
  const old = await exchangeRaw(port, rawRequest(URL, [], 'GET', '1.0'));
  assert.match(links(old), /^\/api\//);
});
