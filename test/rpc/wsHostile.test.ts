/**
 * Hostile clients of the WebSocket on /rpc (src/rpc/ws.ts): one address opening more connections
 * than rpc.ws.maxConnectionsPerClient is refused 429 on the upgrade, and admitted again once one of
 * its connections closes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;

before(async () => {
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  served = await serveRpc(database.db, { HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '3' });
});
after(async () => {
  await served?.close();
  await database?.close();
});

const wsUrl = () => `${served.base.replace('http', 'ws')}/rpc`;

/** Opens a WebSocket: 'open', or the HTTP status the upgrade was refused with. */
function open(): Promise<{ socket?: WebSocket; refused?: number }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl());
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      resolve({ refused: response.statusCode });
      response.resume();
    });
    socket.once('error', (err) => reject(err));
  });
}

test('one client address beyond rpc.ws.maxConnectionsPerClient: refused 429 on the upgrade, admitted again once one closes', async () => {
  const first = await Promise.all([open(), open(), open()]);
  assert.ok(first.every((c) => c.socket !== undefined), 'three connections open');
  assert.equal((await open()).refused, 429);
  const closed = new Promise((resolve) => first[0]!.socket!.once('close', resolve));
  first[0]!.socket!.close();
  await closed;
  // the server counts the connection out when it sees the close
  let again: { socket?: WebSocket; refused?: number } = {};
  for (let i = 0; i < 50 && again.socket === undefined; i++) {
    again = await open();
    if (again.socket === undefined) await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(again.socket, 'admitted after one closed');
  await Promise.all([...first.slice(1), again].map((c) => new Promise((resolve) => (c.socket!.once('close', resolve), c.socket!.close()))));
});
