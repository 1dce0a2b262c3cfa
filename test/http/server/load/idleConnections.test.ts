import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { capConnections } from '../../../../src/http/server/load/connectionCap.ts';
import { CROWDED_IDLE_MS, closeIdleWhenCrowded } from '../../../../src/http/server/load/idleConnections.ts';
import type { Refusals } from '../../../../src/http/server/load/refusals.ts';
import { RawConnection, getRequest } from '../../../support/rawHttp.ts';

const refusals: Refusals = { count: () => {}, raw: () => 'HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n', send: () => {} };

test('idle kept-alive connections: left open while the places are plenty, closed after 5 s idle once half of them are taken', async () => {
  let now = 0;
  const server = createServer((_request, response) => response.end('ok'));
  server.keepAliveTimeout = 600_000;
  const cap = capConnections(server, { max: 4, perClient: 0, holdMs: 0, refusals });
  const idle = closeIdleWhenCrowded(server, cap, 4, 0, () => now);
  idle.stop();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const clients: RawConnection[] = [];
  const served = async () => {
    const client = await RawConnection.open(port);
    clients.push(client);
    client.write(getRequest('/'));
    assert.equal((await client.response()).status, 200);
    await new Promise((resolve) => setImmediate(resolve)); // its answer's end reaches the watch
    return client;
  };
  try {
    const first = await served();
    now = 60_000;
    idle.sweep();
    assert.equal(first.state, 'open', 'one of four places taken: not crowded, kept alive');
    now = 100_000;
    const second = await served(); // two of four: crowded
    const third = await RawConnection.open(port); // no request yet: server.headersTimeout's, never idle here
    clients.push(third);
    now = 100_000 + CROWDED_IDLE_MS - 1;
    idle.sweep();
    await first.ended();
    assert.equal(second.state, 'open', 'idle for less than 5 s');
    now = 100_000 + CROWDED_IDLE_MS;
    idle.sweep();
    await second.ended();
    assert.equal(idle.closed, 2);
    now = 1_000_000;
    idle.sweep();
    assert.equal(third.state, 'open');
  } finally {
    for (const client of clients) client.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
