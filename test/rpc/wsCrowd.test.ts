/**
 * The WebSocket on /rpc (src/rpc/ws.ts) under crowds and liars, after test/rpc/wsHostile:
 * - a client that reads its large eth_getLogs answers slowly but steadily is not closed, however
 *   long the transfer takes past server.stallTimeout, and gets every answer whole and as HTTP
 *   answers it; one that reads nothing and forges pongs is closed all the same;
 * - clients that vanish mid-answer, with subscriptions open or being made, leave nothing counted:
 *   their places (rpc.ws.maxConnectionsPerClient) and subscriptions (rpc.ws.maxSubscriptions) are
 *   taken again, exactly;
 * - lying upgrades: a Host naming no network (404) or malformed (400), bad Sec-WebSocket-Key and
 *   -Version (400, nothing counted), X-Forwarded-For (no escape from the per-client limit; with
 *   server.trustProxy, the address it gives), a huge or odd x-request-id (never echoed);
 * - 1,000 connections in bursts against rpc.ws.maxConnections 200: exactly 800 refused 503, HTTP
 *   answered within a second throughout, places taken again once they close;
 * - on a database that takes 150 ms a statement, 50 clients of an ordinary load are served in full.
 */
import assert from 'node:assert/strict';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { sql } from '../../src/db/sql.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { appOn, testConfig } from '../support/app.ts';
import { type TestDatabase, openTestDatabase } from '../support/database.ts';
import { FrameReader, clientFrame, rawUpgrade, textFrame, upgradeRequest } from './rawWebSocket.ts';
import { type Served, call, delayingDb, serveRpc } from './support.ts';

let database: TestDatabase;
/** The demo's blocks, first and last, as 0x-hex. */
let first: string;
let last: string;
/** A contract with logs, as an address. */
let contract: string;
/** Errors no one handled, while the tests ran. */
const unhandled: unknown[] = [];
const onUnhandled = (err: unknown) => unhandled.push(err);

/** eth_getLogs of any range: no block or time range limit. */
const WIDE = { HIERO_MIRROR_REST_RPC_TIMESTAMPRANGELIMIT: '0', HIERO_MIRROR_REST_RPC_BLOCKRANGELIMIT: '100000000' };

const hex = (n: string | bigint) => `0x${BigInt(n).toString(16)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What `promise` gives, or `otherwise` once `ms` have passed (no timer left behind). */
async function within<T, U>(promise: Promise<T>, ms: number, otherwise: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<U>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

before(async () => {
  process.on('uncaughtException', onUnhandled);
  process.on('unhandledRejection', onUnhandled);
  database = await openTestDatabase('embedded');
  await seedDemo(database.db, { scale: 0.1 });
  const [range] = await database.db.query<{ first: string; last: string }>(sql`select min(index)::text as first, max(index)::text as last from record_file`);
  first = hex(range!.first);
  last = hex(range!.last);
  const [top] = await database.db.query<{ address: string }>(
    sql`select lpad(to_hex(contract_id), 40, '0') as address from contract_log group by contract_id order by count(*) desc limit 1`,
  );
  contract = `0x${top!.address}`;
});
after(async () => {
  await database?.close();
  process.off('uncaughtException', onUnhandled);
  process.off('unhandledRejection', onUnhandled);
  assert.deepEqual(unhandled, [], 'no error went unhandled');
});

/** The block (0x-hex) that holds the `n`th log (from 0, in consensus order). */
async function blockOfLog(n: number): Promise<string> {
  const [row] = await database.db.query<{ i: string }>(
    sql`select index::text as i from record_file where consensus_end >= (select consensus_timestamp from contract_log order by consensus_timestamp offset ${n} limit 1) order by consensus_end limit 1`,
  );
  return hex(row!.i);
}


const portOf = (served: Served) => Number(new URL(served.base).port);
const request = (id: number, method: string, params: unknown[] = []) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** A raw client: upgraded, its frames read as the test takes bytes (FrameReader), pings answered. */
async function rawClient(port: number, headers: Record<string, string | null> = {}) {
  const upgraded = await rawUpgrade(port, upgradeRequest(port, headers));
  assert.equal(upgraded.status, 101, upgraded.head);
  return upgradedClient(upgraded);
}

/** The raw client of an upgrade answered 101. */
function upgradedClient({ rest, socket }: Awaited<ReturnType<typeof rawUpgrade>>) {
  socket.on('error', () => {});
  const reader = new FrameReader(socket);
  if (rest.length > 0) reader.push(rest);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  /** Reads as fast as the server writes. */
  const flow = () => {
    socket.on('data', (data: Buffer) => reader.push(data));
    socket.resume();
  };
  const send = (text: string) => socket.write(textFrame(text));
  /** The answer to `id` (a JSON-RPC answer), once it came. */
  const answer = async (id: number, timeoutMs = 10_000): Promise<any> => {
    for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(10)) {
      const found = reader.messages.map((m) => JSON.parse(m)).find((m) => m.id === id);
      if (found) return found;
      if (socket.destroyed) break;
    }
    throw new Error(`no answer to ${id}: ${reader.messages.map((m) => m.slice(0, 200)).join(' | ')}`);
  };
  return { socket, reader, closed, flow, send, answer };
}

/** Opens a WebSocket with `ws`: the socket, or the HTTP status the upgrade was refused with, or the error. */
function open(url: string, options: WebSocket.ClientOptions = {}): Promise<{ socket?: WebSocket; refused?: number; error?: Error }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, options);
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      resolve({ refused: response.statusCode });
      response.resume();
      response.once('end', () => socket.terminate());
    });
    socket.on('error', (error) => resolve({ error }));
  });
}

/** The status an upgrade from `headers` (or the bytes `raw`) is answered with (101: admitted, then closed). */
async function statusOf(port: number, headers: Record<string, string | null> = {}, raw?: string): Promise<number> {
  const { status, socket } = await rawUpgrade(port, raw ?? upgradeRequest(port, headers));
  socket.destroy();
  return status;
}

/** A raw client, once admitted (tried every 50 ms for 5 s: the places of closed connections are counted out when the server sees them close). */
async function admittedClient(port: number) {
  for (let i = 0; ; i++) {
    const upgraded = await rawUpgrade(port, upgradeRequest(port));
    if (upgraded.status === 101) return upgradedClient(upgraded);
    upgraded.socket.destroy();
    if (i >= 100) throw new Error(`not admitted: ${upgraded.head.split('\r\n')[0]}`);
    await sleep(50);
  }
}

/** A gauge of the server's /metrics, read over HTTP. */
async function gauge(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
}

/** Waits until the server counts `connections` WebSockets and `subscriptions` subscriptions (a condition, not a time). */
async function untilOpen(base: string, connections: number, subscriptions: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  let seen: number[] = [];
  while (Date.now() < deadline) {
    seen = [await gauge(base, 'rpc_websocket_connections'), await gauge(base, 'rpc_subscriptions')];
    if (seen[0] === connections && seen[1] === subscriptions) return;
    await sleep(10);
  }
  assert.fail(`connections and subscriptions ${seen.join(', ')}, expected ${connections}, ${subscriptions}`);
}

const closeAll = (sockets: WebSocket[]) =>
  Promise.all(sockets.map((s) => (s.readyState === WebSocket.CLOSED ? undefined : new Promise((resolve) => (s.once('close', resolve), s.close())))));

test('a client that reads large answers slowly but steadily: not closed past server.stallTimeout, every answer whole and as over HTTP; one that reads nothing and forges pongs: closed', async () => {
  const served = await serveRpc(database.db, { HIERO_MIRROR_REST_SERVER_STALLTIMEOUT: '1500', ...WIDE });
  const serverSockets: Socket[] = [];
  served.app.server.on('upgrade', (_request, socket) => serverSockets.push(socket as Socket));
  try {
    const port = portOf(served);
    // three messages (fewer than rpc.ws.maxInFlight: the connection goes on being read, its pongs with it):
    // an answer of some 150 logs (about 100 KB), one of all the demo's logs (about 0.8 MB), and a
    // batch of eight of those (6 MB): more than the kernel's buffers take, so the server holds bytes
    // back for the client (pages of the default 1,000 logs, written in fragments)
    const small = [{ fromBlock: first, toBlock: await blockOfLog(150) }];
    const whole = [{ fromBlock: first, toBlock: last }];
    const [smallHttp, wholeHttp] = [await call(served.base, 'eth_getLogs', small), await call(served.base, 'eth_getLogs', whole)];
    assert.ok(smallHttp.text.length > 80_000 && wholeHttp.text.length > 700_000, `answers of ${smallHttp.text.length} and ${wholeHttp.text.length} bytes`);
    const client = await rawClient(port);
    client.send(request(1, 'eth_getLogs', small));
    client.send(request(2, 'eth_getLogs', whole));
    client.send(JSON.stringify(Array.from({ length: 8 }, (_, i) => ({ jsonrpc: '2.0', id: 3 + i, method: 'eth_getLogs', params: whole }))));
    // 6 KB taken every 150 ms (40 KB/s) for 7 s: more than four times server.stallTimeout
    const started = Date.now();
    let heldBack = 0;
    while (Date.now() - started < 7000) {
      await sleep(150);
      const take = Math.min(6144, client.socket.readableLength);
      const data = take > 0 ? (client.socket.read(take) as Buffer | null) : (client.socket.read(0), null);
      if (data) client.reader.push(data);
      if ((serverSockets[0]?.writableLength ?? 0) > 0) heldBack++;
      // (the server's side: a client that reads slowly learns of a reset only once it reads that far)
      assert.ok(!client.socket.destroyed && !serverSockets[0]!.destroyed, `closed after ${Date.now() - started} ms, ${client.reader.taken} bytes taken`);
    }
    assert.ok(heldBack >= 10, `the server had bytes waiting for the client (${heldBack} looks)`);
    assert.ok(client.reader.taken > 150_000 && client.reader.taken < 1_000_000, `${client.reader.taken} bytes taken slowly`);
    assert.equal(client.reader.messages.length, 1, 'the first answer, while reading slowly');
    assert.equal(client.reader.closeCode, undefined);
    // the rest as fast as it comes: every answer whole, as HTTP's
    client.flow();
    assert.equal(JSON.stringify((await client.answer(1)).result), JSON.stringify(smallHttp.json.result));
    assert.equal(JSON.stringify((await client.answer(2)).result), JSON.stringify(wholeHttp.json.result));
    for (let waited = 0; client.reader.messages.length < 3 && waited < 20_000; waited += 50) await sleep(50);
    const batch = JSON.parse(client.reader.messages[2]!);
    assert.deepEqual(batch.map((a: { id: number }) => a.id), [3, 4, 5, 6, 7, 8, 9, 10]);
    for (const answer of batch) assert.equal(JSON.stringify(answer.result), JSON.stringify(wholeHttp.json.result));
    assert.ok(client.reader.pings > 0);
    client.socket.destroy();

    // a client that reads nothing but sends pongs (it cannot know the pings' payloads): closed after server.stallTimeout
    const liar = await rawClient(port);
    for (let id = 1; id <= 8; id++) liar.send(request(id, 'eth_getLogs', whole));
    const pongs = setInterval(() => {
      for (let i = 0; i < 4; i++) liar.socket.write(clientFrame(0xa, Buffer.from(i === 0 ? '' : i === 1 ? 'pong' : hex(BigInt(i)).padEnd(8, '0'))));
    }, 200);
    const t0 = Date.now();
    const outcome = await within(liar.closed.then(() => 'closed'), 8000, 'open');
    clearInterval(pongs);
    assert.equal(outcome, 'closed', 'the liar was closed');
    assert.ok(Date.now() - t0 >= 1000, `closed after ${Date.now() - t0} ms`);
  } finally {
    await served.close();
  }
});

test('clients that vanish mid-answer, with subscriptions open or being made: their places and subscriptions are taken again, exactly', async () => {
  // 150 ms a statement: an answer of pages of 50 logs takes seconds, a subscription with an address is still being made when its client goes
  const served = await serveRpc(delayingDb(database.db, () => 150), {
    ...WIDE,
    HIERO_MIRROR_REST_RPC_PAGESIZE: '50',
    HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '3',
    HIERO_MIRROR_REST_RPC_WS_MAXSUBSCRIPTIONS: '4',
  });
  const errors: unknown[] = [];
  const log = served.app.log.error.bind(served.app.log) as (...args: unknown[]) => void;
  served.app.log.error = ((...args: unknown[]) => (errors.push(args), log(...args))) as typeof served.app.log.error;
  try {
    const port = portOf(served);
    const subscribe = async (client: Awaited<ReturnType<typeof rawClient>>, id: number, params: unknown[]) => {
      client.send(request(id, 'eth_subscribe', params));
      const answer = await client.answer(id);
      // the id, or the whole answer (that fails the pattern, and says why)
      return { result: answer.result ?? JSON.stringify(answer), error: answer.error };
    };
    const [a, b, c] = [await rawClient(port), await rawClient(port), await rawClient(port)];
    for (const client of [a, b, c]) client.flow();
    // the process's four subscriptions, two on each of a and b
    for (const [client, id] of [[a, 1], [b, 1]] as const) {
      assert.match((await subscribe(client, id, ['logs', {}])).result, /^0x[0-9a-f]{32}$/);
      assert.match((await subscribe(client, id + 1, ['newHeads'])).result, /^0x[0-9a-f]{32}$/);
    }
    assert.equal((await subscribe(c, 1, ['newHeads'])).error?.code, -32608);
    // the client's three places taken
    assert.equal(await statusOf(port), 429);
    // a and b ask for the whole range; once its first bytes come, a is reset and b gone without a close frame
    a.send(request(10, 'eth_getLogs', [{ fromBlock: first, toBlock: last }]));
    b.send(request(10, 'eth_getLogs', [{ fromBlock: first, toBlock: last }]));
    for (const client of [a, b]) {
      for (const started = Date.now(); client.reader.taken < 20_000 && Date.now() - started < 10_000; ) await sleep(20);
      assert.ok(client.reader.taken >= 20_000 && !client.reader.messages.some((m) => JSON.parse(m).id === 10), 'mid-answer');
    }
    a.socket.resetAndDestroy();
    b.socket.destroy();
    // both places taken again, and no more (c is open)
    const again = [await admittedClient(port), await admittedClient(port)];
    assert.equal(await statusOf(port), 429, 'three places, no more');
    // the four subscriptions taken again, and no more
    for (const client of again) client.flow();
    assert.match((await subscribe(c, 2, ['logs', {}])).result, /^0x/);
    assert.match((await subscribe(c, 3, ['newHeads'])).result, /^0x/);
    assert.match((await subscribe(again[0]!, 1, ['logs', {}])).result, /^0x/);
    assert.match((await subscribe(again[0]!, 2, ['newHeads'])).result, /^0x/);
    assert.equal((await subscribe(again[1]!, 1, ['newHeads'])).error?.code, -32608, 'four subscriptions, no more');

    // clients gone while their subscription is being made (the address is looked up: 150 ms at least)
    for (const client of [c, ...again]) client.socket.destroy();
    await untilOpen(served.base, 0, 0);
    for (let round = 0; round < 2; round++) {
      const going = await Promise.all([rawClient(port), rawClient(port), rawClient(port)]);
      for (const [i, client] of going.entries()) {
        client.send(request(1, 'eth_subscribe', ['logs', { address: contract }]));
        if (i === 0) client.send(request(2, 'eth_subscribe', ['newHeads']));
      }
      await sleep(20);
      for (const client of going) client.socket.destroy();
      await sleep(100);
    }
    // every subscription those made has ended with its connection: four taken again
    await untilOpen(served.base, 0, 0);
    const fresh = await Promise.all([rawClient(port), rawClient(port)]);
    for (const client of fresh) client.flow();
    assert.match((await subscribe(fresh[0]!, 1, ['logs', { address: contract }])).result, /^0x/);
    assert.match((await subscribe(fresh[0]!, 2, ['newHeads'])).result, /^0x/);
    assert.match((await subscribe(fresh[1]!, 1, ['logs', {}])).result, /^0x/);
    assert.match((await subscribe(fresh[1]!, 2, ['newHeads'])).result, /^0x/, 'the subscriptions of vanished clients are not counted');
    assert.equal((await subscribe(fresh[1]!, 3, ['logs', { topics: [`0x${'1'.repeat(64)}`] }])).error?.code, -32608);
    for (const client of fresh) client.socket.destroy();
    // the server still answers
    assert.equal((await call(served.base, 'eth_chainId')).status, 200);
    assert.deepEqual(errors, [], 'nothing logged as failed');
  } finally {
    await served.close();
  }
});

test('lying upgrades: a Host naming no network or malformed, bad Sec-WebSocket-Key and -Version, X-Forwarded-For, a huge or odd x-request-id', async () => {
  const served = await serveRpc(database.db, { HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '3' });
  const config = testConfig({ HIERO_MIRROR_REST_SERVER_TRUSTPROXY: 'true', HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '3' });
  // a deployment of one named network, testnet, without a default, behind a proxy
  const app = appOn(database.db, { config, networks: [{ name: 'testnet', config, db: database.db }] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const named = (app.server.address() as AddressInfo).port;
  try {
    const port = portOf(served);
    // the Host
    assert.equal(await statusOf(named, { Host: 'testnet.example.org' }), 101);
    assert.equal(await statusOf(named, { Host: 'mainnet.example.org' }), 404, 'a network not served');
    assert.equal(await statusOf(named, { Host: 'localhost' }), 404, 'no network and no default');
    assert.equal(await statusOf(named, { Host: 'previewnet.example.org', 'X-Forwarded-Host': 'testnet.example.org' }), 101, 'the proxy\'s host');
    assert.equal(await statusOf(port, { Host: 'evil.com/<script>' }), 400, 'not hostname[:port]');
    assert.equal(await statusOf(port, { Host: 'a.example.org:99999' }), 400, 'a port out of range');
    assert.equal(await statusOf(port, {}, upgradeRequest(port).replace('\r\n\r\n', '\r\nHost: other.example.org\r\n\r\n')), 400, 'two Host lines');
    assert.equal(await statusOf(port, { Host: null }), 400, 'no Host');
    // bad handshakes, many more than the client's three places: refused, and nothing counted
    const bad: Array<Record<string, string | null>> = [
      { 'Sec-WebSocket-Key': 'short' },
      { 'Sec-WebSocket-Key': null },
      { 'Sec-WebSocket-Key': 'x'.repeat(5000) },
      { 'Sec-WebSocket-Version': '12' },
      { 'Sec-WebSocket-Version': null },
      { 'Sec-WebSocket-Version': '13, 13' },
      { Upgrade: 'h2c' },
      { 'Sec-WebSocket-Protocol': ',,,' },
    ];
    for (let round = 0; round < 3; round++) for (const headers of bad) assert.equal(await statusOf(port, headers), 400, JSON.stringify(headers));
    const url = `ws://127.0.0.1:${port}/rpc`;
    const three = await Promise.all([open(url), open(url), open(url)]);
    assert.ok(three.every((c) => c.socket), 'the client\'s three places are free');

    // X-Forwarded-For without server.trustProxy: the peer's address counts, whatever the header says
    assert.equal((await open(url, { headers: { 'X-Forwarded-For': '203.0.113.7' } })).refused, 429);
    assert.equal((await open(url, { headers: { 'X-Forwarded-For': '203.0.113.8, 127.0.0.1' } })).refused, 429);
    await closeAll(three.map((c) => c.socket!));
    // with server.trustProxy: the address X-Forwarded-For gives (as the stream limits count it), three each
    const namedUrl = `ws://127.0.0.1:${named}/rpc`;
    const as = (address: string) => ({ headers: { Host: 'testnet.example.org', 'X-Forwarded-For': `${address}, 10.0.0.1` } });
    const behind = await Promise.all([1, 2, 3].flatMap((i) => [open(namedUrl, as('198.51.100.1')), open(namedUrl, as(`198.51.100.${i + 1}`))]));
    assert.ok(behind.every((c) => c.socket), 'three clients behind the proxy');
    assert.equal((await open(namedUrl, as('198.51.100.1'))).refused, 429, 'a fourth from one of them');
    const another = await open(namedUrl, as('198.51.100.9'));
    assert.ok(another.socket, 'another client behind the proxy');
    await closeAll([...behind, another].map((c) => c.socket!));

    // the request id of errors: the client's x-request-id when it is a short token, else a new one
    const errorOf = async (requestId: string) => {
      const client = await rawClient(port, { 'x-request-id': requestId });
      client.flow();
      client.send(request(1, 'eth_getLogs', [{ fromBlock: last, toBlock: first }]));
      const answer = await client.answer(1);
      client.socket.destroy();
      return String(answer.error?.message);
    };
    assert.equal(await errorOf('abc-123'), '[Request ID: abc-123-1] Invalid block range');
    for (const lie of ['x'.repeat(8000), 'a] [Request ID: forged', '<script>alert(1)</script>', 'id with spaces']) {
      const message = await errorOf(lie);
      assert.match(message, /^\[Request ID: [0-9a-f-]{36}-1\] Invalid block range$/, message.slice(0, 200));
    }
    // HTTP alike
    const http = await fetch(`${served.base}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'x'.repeat(8000) },
      body: request(1, 'eth_getLogs', [{ fromBlock: last, toBlock: first }]),
    });
    assert.match(((await http.json()) as any).error.message, /^\[Request ID: [0-9a-f-]{36}\] Invalid block range$/);
  } finally {
    await app.close();
    await served.close();
  }
});

test('1,000 connections in bursts against rpc.ws.maxConnections 200: exactly 800 refused 503, HTTP answered within a second throughout, places taken again', async () => {
  // server.maxConnections as rpc.ws.maxConnections, as by default (1,000 each): WebSockets must not take HTTP's places
  const served = await serveRpc(database.db, {
    HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONS: '200',
    HIERO_MIRROR_REST_RPC_WS_MAXCONNECTIONSPERCLIENT: '0',
    HIERO_MIRROR_REST_SERVER_MAXCONNECTIONS: '200',
  });
  const url = `${served.base.replace('http', 'ws')}/rpc`;
  let polling = true;
  let slowest = 0;
  let polls = 0;
  const failures: string[] = [];
  const poller = (async () => {
    while (polling) {
      const t0 = Date.now();
      const { status, json } = await call(served.base, 'eth_chainId');
      slowest = Math.max(slowest, Date.now() - t0);
      polls++;
      if (status !== 200 || json?.result !== '0x12a') failures.push(`${status} ${JSON.stringify(json)}`);
      await sleep(20);
    }
  })();
  const admitted: WebSocket[] = [];
  const outcomes = new Map<string, number>();
  const count = (outcome: { socket?: WebSocket; refused?: number; error?: Error }) => {
    const key = outcome.socket ? 'open' : outcome.refused !== undefined ? String(outcome.refused) : `error ${outcome.error?.message}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    if (outcome.socket) admitted.push(outcome.socket);
  };
  try {
    const started = Date.now();
    for (let burst = 0; burst < 20; burst++) {
      for (const outcome of await Promise.all(Array.from({ length: 50 }, () => open(url)))) count(outcome);
    }
    const crowdMs = Date.now() - started;
    assert.deepEqual(Object.fromEntries(outcomes), { open: 200, 503: 800 }, `in ${crowdMs} ms`);
    // the 200 are served
    const answered = await Promise.all(
      admitted.slice(0, 50).map(
        (socket, i) =>
          new Promise<any>((resolve) => {
            socket.once('message', (data) => resolve(JSON.parse(String(data))));
            socket.send(request(i, 'eth_chainId'));
          }),
      ),
    );
    assert.ok(answered.every((a, i) => a.result === '0x12a' && a.id === i));
    // they close; as many are admitted again, and no more
    await closeAll(admitted.splice(0));
    outcomes.clear();
    for (let i = 0; i < 100 && !outcomes.has('open'); i++) {
      count(await open(url));
      if (!outcomes.has('open')) await sleep(20);
    }
    outcomes.clear();
    for (let burst = 0; burst < 5; burst++) {
      for (const outcome of await Promise.all(Array.from({ length: 50 }, () => open(url)))) count(outcome);
    }
    assert.deepEqual(Object.fromEntries(outcomes), { open: 199, 503: 51 });
    polling = false;
    await poller;
    assert.deepEqual(failures, [], 'every HTTP call answered');
    assert.ok(polls >= 5, `${polls} HTTP calls`);
    assert.ok(slowest < 1000, `an HTTP call waited ${slowest} ms`);
  } finally {
    polling = false;
    await poller;
    await closeAll(admitted);
    await served.close();
  }
});

test('a database that takes 150 ms a statement: 50 clients of an ordinary load, within the default limits, are served in full', async () => {
  const params = [
    [{ fromBlock: first, toBlock: hex(BigInt(first) + 999n) }],
    [{ fromBlock: first, toBlock: last, address: contract }],
    [{ fromBlock: await blockOfLog(600), toBlock: hex(BigInt(await blockOfLog(600)) + 999n) }],
  ];
  // what each answers on the database at full speed
  const fast = await serveRpc(database.db);
  const expected = await Promise.all(params.map(async (p) => JSON.stringify((await call(fast.base, 'eth_getLogs', p)).json.result)));
  await fast.close();
  assert.ok(expected.every((e) => e.startsWith('[')), expected.join('\n').slice(0, 500));
  assert.ok(expected[1]!.length > 10_000, `${expected[1]!.length} bytes of one contract's logs`);

  const served = await serveRpc(delayingDb(database.db, () => 150));
  try {
    const url = `${served.base.replace('http', 'ws')}/rpc`;
    const started = Date.now();
    // 50 clients, each from an address of its own (127.0.0.2 on)
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const opened = await open(url, { localAddress: `127.0.0.${i + 2}` });
        if (!opened.socket) return { i, refused: opened.refused, error: opened.error?.message };
        const socket = opened.socket;
        const closes: number[] = [];
        socket.on('close', (code) => closes.push(code));
        const answers = new Map<number, any>();
        const all = new Promise<void>((resolve) =>
          socket.on('message', (data) => {
            const message = JSON.parse(String(data));
            if (message.id !== undefined) answers.set(message.id, message);
            if (answers.size === 6) resolve();
          }),
        );
        // six messages at once, more than rpc.ws.maxInFlight (4): the last wait their turn
        socket.send(request(1, 'eth_getLogs', params[0]));
        socket.send(request(2, 'eth_blockNumber'));
        socket.send(request(3, 'eth_getLogs', params[1]));
        socket.send(request(4, 'eth_subscribe', ['logs', i % 2 === 0 ? {} : { address: contract }]));
        socket.send(request(5, 'eth_blockNumber'));
        socket.send(request(6, 'eth_getLogs', params[2]));
        await within(all, 60_000, undefined);
        return { i, socket, answers, closes };
      }),
    );
    const servedMs = Date.now() - started;
    await sleep(500);
    for (const result of results) {
      assert.ok('socket' in result && result.socket, `client ${result.i}: ${JSON.stringify(result)}`);
      const { socket, answers, closes } = result as { i: number; socket: WebSocket; answers: Map<number, any>; closes: number[] };
      assert.deepEqual(closes, [], `client ${result.i} closed`);
      assert.equal(socket.readyState, WebSocket.OPEN);
      assert.equal(answers.size, 6, `client ${result.i}: ${[...answers.values()].map((a) => JSON.stringify(a).slice(0, 200)).join(' | ')}`);
      assert.equal(JSON.stringify(answers.get(1).result), expected[0]);
      assert.equal(JSON.stringify(answers.get(3).result), expected[1]);
      assert.equal(JSON.stringify(answers.get(6).result), expected[2]);
      assert.match(answers.get(2).result, /^0x[0-9a-f]+$/);
      assert.match(answers.get(5).result, /^0x[0-9a-f]+$/);
      assert.match(answers.get(4).result, /^0x[0-9a-f]{32}$/);
    }
    await closeAll(results.map((r) => (r as { socket: WebSocket }).socket));
    assert.ok(servedMs < 60_000, `served in ${servedMs} ms`);
  } finally {
    await served.close();
  }
});
