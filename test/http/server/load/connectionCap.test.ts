import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../../src/config/config.ts';
import type { Route } from '../../../../src/http/route.ts';
import { httpErrors } from '../../../../src/http/answer/errorCatalog.ts';
import { RESERVED_PER_CLIENT } from '../../../../src/http/server/load/connectionCap.ts';
import { buildApp } from '../../../../src/http/server/server.ts';
import { testConfig } from '../../../support/app.ts';
import { fakeDb } from '../../../support/database.ts';
import { RawConnection, getRequest } from '../../../support/rawHttp.ts';

/**
 * The connection caps over real sockets from two client addresses (127.0.0.1 and 127.0.0.2): one
 * address cannot take every place, the probes are answered whatever the caps, idle and slow
 * connections hold no place for long, and behind a trusted proxy the forwarded client is capped.
 */

/** Requests of `/api/v1/contracts/slow` wait until `release()`; any other contract is answered at once. */
let release: () => void = () => {};
let gate = Promise.resolve();
const closeGate = () => {
  gate = new Promise<void>((resolve) => (release = resolve));
};
const routes: Route[] = [
  {
    path: '/api/v1/contracts/:contractId',
    cacheControl: 'public, max-age=1',
    async handler({ params }) {
      if (params.contractId === 'slow') await gate;
      return { body: { id: params.contractId } };
    },
  },
];

const apps: FastifyInstance[] = [];
const clients: RawConnection[] = [];
after(async () => {
  release();
  for (const client of clients) client.destroy();
  for (const app of apps) await app.close();
});

async function listening(env: Record<string, string>): Promise<number> {
  const config: Config = testConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '100', ...env });
  const app = buildApp({ config, db: fakeDb(), routes });
  await app.listen({ port: 0, host: '0.0.0.0' });
  apps.push(app);
  return (app.server.address() as AddressInfo).port;
}

async function open(port: number, from = '127.0.0.1'): Promise<RawConnection> {
  const client = await RawConnection.open(port, '127.0.0.1', from);
  clients.push(client);
  return client;
}

async function ask(client: RawConnection, path: string, headers: Record<string, string> = {}) {
  client.write(getRequest(path, headers));
  return client.response(5_000);
}

test('server.maxConnectionsPerClient: one address past its cap is refused 429, another address is served, probes are answered', async () => {
  const port = await listening({ HIERO_MIRROR_REST_SERVER_MAXCONNECTIONSPERCLIENT: '3', HIERO_MIRROR_REST_SERVER_HEADERSTIMEOUT: '1000' });
  for (let i = 0; i < 3; i++) await open(port); // three idle connections: the address's cap
  const reserved: RawConnection[] = [];
  for (let i = 0; i < RESERVED_PER_CLIENT; i++) reserved.push(await open(port));
  const probe = await ask(reserved[0]!, '/health/liveness');
  assert.equal(probe.status, 200, 'a probe on a reserved place is answered');
  const metrics = await ask(reserved[0]!, '/metrics');
  assert.equal(metrics.status, 200);
  const beyond = await open(port); // past the address's reserve too: refused before its request is read
  const started = performance.now();
  const raw = await ask(beyond, '/health/liveness');
  assert.equal(raw.status, 429);
  assert.ok(performance.now() - started >= 900, 'held server.headersTimeout (1 s here): the client reconnects that much less often');
  assert.equal(raw.headers.connection, 'close');
  assert.equal(await beyond.ended(), 'closed');

  const refused = await ask(reserved[1]!, '/api/v1/contracts/1');
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.connection, 'close');
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(refused.body, httpErrors.tooManyConnections(3).body);
  assert.equal(await reserved[1]!.ended(), 'closed', 'a FIN, never a reset');

  const other = await open(port, '127.0.0.2');
  assert.equal((await ask(other, '/api/v1/contracts/1')).status, 200, 'another address is served');
  assert.equal((await ask(other, '/api/v1/contracts/2')).status, 200, 'and kept alive');
});

test('server.maxConnections: past the cap a probe on a reserved place is answered, a contract request gets the shed 503', async () => {
  const port = await listening({ HIERO_MIRROR_REST_SERVER_MAXCONNECTIONS: '2' });
  await open(port, '127.0.0.2');
  await open(port, '127.0.0.3');
  const third = await open(port);
  assert.equal((await ask(third, '/health/readiness')).status, 200, 'readiness whatever the cap');
  const shed = await ask(third, '/api/v1/contracts/1');
  assert.equal(shed.status, 503);
  assert.equal(shed.body, httpErrors.unavailable.body);
  assert.equal(shed.headers.connection, 'close');
});

test('server.headersTimeout: a connection that sends nothing is closed without an answer, a slow head gets 408', async () => {
  const port = await listening({ HIERO_MIRROR_REST_SERVER_HEADERSTIMEOUT: '1000' });
  const idle = await open(port);
  const slow = await open(port);
  slow.write('GET /api/v1/contracts/1 HTTP/1.1\r\n');
  const drip = setInterval(() => slow.write('X-Drip: 1\r\n'), 200);
  try {
    const started = performance.now();
    const answer = await slow.response(5_000);
    assert.equal(answer.status, 408);
    assert.equal(answer.headers.connection, 'close');
    assert.equal(await idle.ended(5_000), 'closed');
    assert.equal(idle.rest(), '', 'no answer to a connection that asked nothing');
    assert.ok(performance.now() - started < 4_000, 'within the deadline and one check of it');
  } finally {
    clearInterval(drip);
  }
});

test('server.keepAliveTimeout: 72 s by default (longer than the balancers\' 60 s), and an idle kept-alive connection closes after it', async () => {
  const defaults = await listening({});
  const client = await open(defaults);
  assert.equal((await ask(client, '/api/v1/contracts/1')).headers['keep-alive'], 'timeout=72');
  const short = await listening({ HIERO_MIRROR_REST_SERVER_KEEPALIVETIMEOUT: '300' });
  const kept = await open(short);
  assert.equal((await ask(kept, '/api/v1/contracts/1')).status, 200);
  assert.equal(await kept.ended(3_000), 'closed');
});

test('behind a trusted proxy the cap counts each forwarded client\'s requests in flight, on connections kept open', async () => {
  const port = await listening({ HIERO_MIRROR_REST_SERVER_MAXCONNECTIONSPERCLIENT: '2', HIERO_MIRROR_REST_SERVER_TRUSTPROXY: 'true' });
  closeGate();
  const proxy = await Promise.all([open(port), open(port), open(port), open(port)]);
  const slowA = proxy[0]!;
  const slowB = proxy[1]!;
  slowA.write(getRequest('/api/v1/contracts/slow', { 'X-Forwarded-For': '203.0.113.7' }));
  slowB.write(getRequest('/api/v1/contracts/slow', { 'X-Forwarded-For': '203.0.113.7, 10.0.0.1' }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const third = await ask(proxy[2]!, '/api/v1/contracts/1', { 'X-Forwarded-For': '203.0.113.7' });
  assert.equal(third.status, 429);
  assert.equal(third.body, httpErrors.tooManyConnections(2).body);
  assert.notEqual(third.headers.connection, 'close', "the proxy's connection stays open for its other clients");
  assert.equal((await ask(proxy[2]!, '/api/v1/contracts/1', { 'X-Forwarded-For': '198.51.100.1' })).status, 200, 'another client is served');
  assert.equal((await ask(proxy[3]!, '/api/v1/contracts/1')).status, 200, "the proxy's own requests are not counted");
  release();
  assert.equal((await slowA.response()).status, 200);
  assert.equal((await slowB.response()).status, 200);
  assert.equal((await ask(proxy[2]!, '/api/v1/contracts/1', { 'X-Forwarded-For': '203.0.113.7' })).status, 200, 'served again once its requests ended');
});
