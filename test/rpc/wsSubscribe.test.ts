/**
 * eth_subscribe's limits on one WebSocket (src/rpc/wsSubscribe.ts), with calls sent together over a
 * real socket while the database is slow: exactly rpc.ws.maxSubscriptionsPerConnection pass, the
 * rest are refused (-32608), in one batch or in messages answered at once; the places of those
 * refused or ended come back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { type Served, delayingDb, serveRpc } from './support.ts';

let database: TestDatabase;
let served: Served;

before(async () => {
  database = await openTestDatabase('embedded');
  // every statement 20 ms late: each eth_subscribe waits for the database before it is kept
  served = await serveRpc(delayingDb(database.db, () => 20), { HIERO_MIRROR_REST_RPC_WS_MAXINFLIGHT: '16' });
});
after(async () => {
  await served?.close();
  await database?.close();
});

async function connect(): Promise<{ socket: WebSocket; next: () => Promise<any> }> {
  const socket = new WebSocket(`${served.base.replace('http', 'ws')}/rpc`);
  const queue: any[] = [];
  const waiting: Array<(value: any) => void> = [];
  socket.on('message', (data) => {
    const value = JSON.parse(data.toString());
    const take = waiting.shift();
    if (take) take(value);
    else queue.push(value);
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return { socket, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolve) => waiting.push(resolve))) };
}

/** Eleven different logs subscriptions (a topic each), ids from `first`. */
const eleven = (first: number) =>
  Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: first + i, method: 'eth_subscribe', params: ['logs', { topics: [`0x${i.toString(16).padStart(64, '0')}`] }] }));

const outcome = (answers: any[]) => ({
  kept: answers.filter((a) => typeof a.result === 'string').length,
  refused: answers.filter((a) => a.error?.code === -32608 && a.error.message === 'Exceeded maximum allowed subscriptions').length,
});

test('11 eth_subscribe in one batch: 10 kept, 1 refused; after an unsubscribe one more is kept', async () => {
  const { socket, next } = await connect();
  try {
    socket.send(JSON.stringify(eleven(1)));
    assert.deepEqual(outcome(await next()), { kept: 10, refused: 1 });
    socket.send(JSON.stringify(eleven(20)[10]));
    assert.equal((await next()).error?.code, -32608, 'the connection is full');
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 40, method: 'eth_unsubscribe', params: [] }));
    assert.equal((await next()).result, true);
    socket.send(JSON.stringify(eleven(50)));
    assert.deepEqual(outcome(await next()), { kept: 10, refused: 1 }, 'the places of the ended ones came back, the refused took none');
  } finally {
    socket.close();
  }
});

test('11 eth_subscribe messages answered at once: 10 kept, 1 refused', async () => {
  const { socket, next } = await connect();
  try {
    for (const request of eleven(1)) socket.send(JSON.stringify(request));
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await next());
    assert.deepEqual(outcome(answers), { kept: 10, refused: 1 });
  } finally {
    socket.close();
  }
});
