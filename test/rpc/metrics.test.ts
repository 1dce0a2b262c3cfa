/**
 * The endpoint's metrics at /metrics (src/rpc/metrics.ts): requests by transport, method and error
 * code (a bounded method label), their durations, and what is open now: WebSocket connections,
 * subscriptions, filters installed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, call, insertOneBlock, post, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;

before(async () => {
  database = await openTestDatabase('embedded');
  await insertOneBlock(database.db);
  served = await serveRpc(database.db);
});
after(async () => {
  await served?.close();
  await database?.close();
});

/** The value of one sample of /metrics (0 when absent). */
async function sample(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${served.base}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? wanted.every((w) => l.includes(w)) : false);
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

test('requests by method and code, durations; connections, subscriptions and filters open', async () => {
  await call(served.base, 'eth_chainId');
  await call(served.base, 'eth_chainId');
  await call(served.base, 'eth_getLogs', [{ topics: [null, null, null, null, null] }]);
  await call(served.base, 'no_such_method_of_any_client');
  await post(served.base, '42');
  assert.equal(await sample('rpc_requests_total', { transport: 'http', method: 'eth_chainId', code: 'ok' }), 2);
  assert.equal(await sample('rpc_requests_total', { transport: 'http', method: 'eth_getLogs', code: '-32602' }), 1);
  assert.equal(await sample('rpc_requests_total', { method: 'other', code: '-32601' }), 1, 'an unknown method under "other"');
  assert.equal(await sample('rpc_requests_total', { method: 'none', code: '-32600' }), 1, 'a body with no request');
  assert.equal(await sample('rpc_request_duration_seconds_count', { transport: 'http', method: 'eth_chainId' }), 2);

  const filter = (await call(served.base, 'eth_newBlockFilter')).json.result;
  assert.equal(await sample('rpc_filters_installed'), 1);
  await call(served.base, 'eth_uninstallFilter', [filter]);
  assert.equal(await sample('rpc_filters_installed'), 0);

  const socket = new WebSocket(`${served.base.replace('http', 'ws')}/rpc`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const answer = new Promise((resolve) => socket.once('message', resolve));
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
  await answer;
  assert.equal(await sample('rpc_websocket_connections'), 1);
  assert.equal(await sample('rpc_subscriptions'), 1);
  assert.equal(await sample('rpc_requests_total', { transport: 'ws', method: 'eth_subscribe', code: 'ok' }), 1);
  await new Promise((resolve) => (socket.once('close', resolve), socket.close()));
  for (let i = 0; i < 50 && (await sample('rpc_websocket_connections')) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await sample('rpc_websocket_connections'), 0);
  assert.equal(await sample('rpc_subscriptions'), 0);
});
