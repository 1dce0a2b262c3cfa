/**
 * Hostile clients of the WebSocket on /rpc (src/rpc/ws.ts): one address opening more connections
 * than rpc.ws.maxConnectionsPerClient is refused 429 on the upgrade, and admitted again once one of
 * its connections closes; a client that asks for large answers and never reads them gets pages only
 * as fast as it takes them (src/rpc/wsWriter.ts) and is closed after server.stallTimeout, while
 * other clients are answered.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { rawWebSocket, textFrame } from './rawWebSocket.ts';
import { type Served, call, countingDb, serveRpc } from './support.ts';

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

test('a client that asks for large answers and never reads: pages read only as it takes them, closed after server.stallTimeout, others answered, their pages too', async () => {
  let pages = 0;
  const counting = countingDb(database.db, (text) => {
    if (/from contract_log/.test(text)) pages++;
  });
  // pages of 10 logs: the demo's whole range (about 1,200 logs, 0.8 MB) is some 120 pages an answer;
  // one page read at a time (rpc.pageReads): a walk waiting for its client holds none
  const hostile = await serveRpc(counting, {
    HIERO_MIRROR_REST_SERVER_STALLTIMEOUT: '1500',
    HIERO_MIRROR_REST_RPC_PAGEREADS: '1',
    HIERO_MIRROR_REST_RPC_PAGESIZE: '10',
    HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0',
    HIERO_MIRROR_REST_RPC_BLOCKRANGELIMIT: '100000000',
  });
  try {
    const port = Number(new URL(hostile.base).port);
    const [range] = await database.db.query<{ first: string; last: string }>(sql`select min(index)::text as first, max(index)::text as last from record_file`);
    const hex = (n: string) => `0x${BigInt(n).toString(16)}`;
    const whole = { jsonrpc: '2.0', method: 'eth_getLogs', params: [{ fromBlock: hex(range!.first), toBlock: hex(range!.last) }] };
    const { json: answer, text } = await call(hostile.base, 'eth_getLogs', whole.params);
    assert.ok(Array.isArray(answer.result) && answer.result.length > 1000, `the whole range: ${text.slice(0, 300)}`);
    const pagesPerAnswer = pages;
    assert.ok(pagesPerAnswer >= 100, `${pagesPerAnswer} pages an answer`);

    // 40 answers asked for (40 x 0.8 MB), none read
    const socket = await rawWebSocket(port);
    for (let id = 1; id <= 40; id++) socket.write(textFrame(JSON.stringify({ ...whole, id })));
    pages = 0;
    const started = Date.now();
    // another client meanwhile: answered within a second each time
    let slowest = 0;
    while (Date.now() - started < 1000) {
      const t0 = Date.now();
      assert.equal((await call(hostile.base, 'eth_chainId')).status, 200);
      slowest = Math.max(slowest, Date.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(slowest < 1000, `another client waited ${slowest} ms`);
    // the socket's buffers fill, then no page more is read
    let written = pages;
    for (let stableSince = Date.now(); Date.now() - stableSince < 600; ) {
      await new Promise((r) => setTimeout(r, 100));
      if (pages !== written) [written, stableSince] = [pages, Date.now()];
    }
    assert.ok(written < 10 * pagesPerAnswer, `${written} pages read for a client that reads nothing (${40 * pagesPerAnswer} asked for)`);
    // the stalled walks hold no page read: another client's answer of 120 pages is read whole meanwhile
    const other = await call(hostile.base, 'eth_getLogs', whole.params);
    assert.equal(other.text, text);
    written = pages;
    // closed once it has taken nothing for 1.5 server.stallTimeout (1.5 s; the watch looks every 375 ms)
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    await new Promise((r) => setTimeout(r, 3000));
    // (a window the kernel opens may let a page or two more through)
    assert.ok(pages - written <= 4, `${pages - written} pages read after the stall`);
    socket.resume();
    const outcome = await Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('open'), 3000))]);
    assert.equal(outcome, 'closed', 'the server closed the connection');
    assert.ok(text.length > 500_000, `an answer of ${text.length} bytes`);
  } finally {
    await hostile.close();
  }
});
