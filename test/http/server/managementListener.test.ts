/**
 * The management listener: the probes and the metrics on a port of their own, answered by the app's
 * routes with the same bytes, whatever one client does to the service's port; any other path 404.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Route } from '../../../src/http/route.ts';
import { httpErrors } from '../../../src/http/answer/errorCatalog.ts';
import { type ManagementListener, listenManagement } from '../../../src/http/server/managementListener.ts';
import { buildApp } from '../../../src/http/server/server.ts';
import { testConfig } from '../../support/app.ts';
import { fakeDb } from '../../support/database.ts';
import { RawConnection, getRequest } from '../../support/rawHttp.ts';

const routes: Route[] = [{ path: '/api/v1/contracts/:contractId', cacheControl: 'public, max-age=1', handler: async ({ params }) => ({ body: { id: params.contractId } }) }];
const clients: RawConnection[] = [];
const closing: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const client of clients) client.destroy();
  for (const close of closing.reverse()) await close();
});

async function ask(port: number, path: string, from = '127.0.0.1', method = 'GET') {
  const client = await RawConnection.open(port, '127.0.0.1', from);
  clients.push(client);
  client.write(method === 'HEAD' ? getRequest(path).replace(/^GET/, 'HEAD') : getRequest(path));
  return client.response(5_000, method === 'HEAD');
}

test('the probes and /metrics on the management port: the same answers as on the service port, while one client holds every place there; other paths 404', async () => {
  const config = testConfig({ HIERO_MIRROR_REST_SERVER_MAXCONNECTIONSPERCLIENT: '2', HIERO_MIRROR_REST_SERVER_MAXSHEDDELAY: '100' });
  const app = buildApp({ config, db: fakeDb(), routes });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closing.push(() => app.close());
  const port = (app.server.address() as AddressInfo).port;
  const management: ManagementListener = await listenManagement(app, { port: 0, host: '127.0.0.1', backlog: 64, headersTimeoutMs: 10_000, vary: config.response.compression });
  closing.unshift(() => management.close());
  assert.notEqual(management.port, port);

  for (const path of ['/health/liveness', '/health/readiness']) {
    const here = await ask(management.port, path);
    const there = await ask(port, path, '127.0.0.4');
    assert.equal(here.status, 200, path);
    assert.equal(here.body, there.body, `${path}: the app's own answer`);
    assert.equal(here.headers['content-type'], there.headers['content-type']);
  }
  const metrics = await ask(management.port, '/metrics');
  assert.equal(metrics.status, 200);
  assert.match(metrics.body, /^# HELP /m);
  assert.equal((await ask(management.port, '/health/liveness', '127.0.0.1', 'HEAD')).status, 200);

  for (const path of ['/api/v1/contracts/1', '/', '/healthz', '/metrics/../api/v1/contracts/1']) {
    const other = await ask(management.port, path);
    assert.equal(other.status, 404, path);
    assert.equal(other.body, httpErrors.notFound.body, path);
  }

  // one address holds its places, its reserved ones, and one more waits for its 429 on the service port
  const held: RawConnection[] = [];
  for (let i = 0; i < 5; i++) held.push(await RawConnection.open(port, '127.0.0.1', '127.0.0.2'));
  clients.push(...held);
  const started = performance.now();
  const probe = await ask(management.port, '/health/readiness', '127.0.0.2');
  assert.equal(probe.status, 200, 'the same address is answered on the management port: no cap there');
  assert.ok(performance.now() - started < 1000, 'at once');

  await management.close();
  await assert.rejects(RawConnection.open(management.port, '127.0.0.1', '127.0.0.3'), 'closed with the app');
});
