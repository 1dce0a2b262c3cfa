import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { type Server, createServer } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { tookBytes, watchStalls } from '../../../../src/http/server/load/stallWatch.ts';
import { type AckedReader, procAcked } from '../../../../src/http/server/load/tcpAcked.ts';

/** What the watch reads of a socket: the bytes waiting, drain and close, and the reset. */
class FakeSocket extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  resetAndDestroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
}

/** A watch on a fake server and clock; `acked` tells what clients took (undefined: the kernel cannot tell, as off Linux). */
function watched(timeoutMs: number, acked: AckedReader = async () => undefined, minRate = 100) {
  let now = 0;
  const server = new EventEmitter();
  const watch = watchStalls(server as unknown as Server, { timeoutMs, minRate, registry: new Registry(), logger: false, now: () => now, acked });
  watch.stop();
  const connect = () => {
    const socket = new FakeSocket();
    server.emit('connection', socket);
    return socket;
  };
  /** A look at `ms`, and the reading it asked for, if any. */
  const at = async (ms: number) => {
    now = ms;
    watch.sweep();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { watch, connect, at };
}

test('stall watch, where the kernel cannot tell: a connection whose waiting bytes do not go down for the timeout is reset; progress, drains and idle ones are not', async () => {
  const { watch, connect, at } = watched(1000);
  const stuck = connect();
  const slow = connect();
  const drains = connect();
  const idle = connect();
  stuck.writableLength = slow.writableLength = drains.writableLength = 50_000;
  await at(0);
  await at(600);
  slow.writableLength = 40_000; // the client took some
  drains.writableLength = 60_000;
  await at(900);
  drains.emit('drain'); // took everything, then more was written
  await at(1000);
  assert.equal(stuck.destroyed, true, 'nothing taken for 1000 ms');
  assert.equal(slow.destroyed, false);
  assert.equal(drains.destroyed, false);
  await at(1700);
  assert.equal(slow.destroyed, false, 'its 1000 ms run from its last progress (900)');
  await at(1950);
  assert.equal(drains.destroyed, true, 'its 1000 ms run from its drain');
  assert.equal(slow.destroyed, true);
  await at(10_000);
  assert.equal(idle.destroyed, false, 'nothing waits: never judged');
  assert.equal(watch.closed, 3);
});

test('stall watch: a connection told of its client\'s progress (tookBytes: a WebSocket\'s pongs) is not reset while its bytes stay', async () => {
  const { watch, connect, at } = watched(1000);
  const told = connect();
  const stuck = connect();
  told.writableLength = stuck.writableLength = 50_000;
  await at(0);
  for (let ms = 500; ms <= 3000; ms += 500) {
    await at(ms);
    tookBytes(told as never);
  }
  assert.equal(stuck.destroyed, true);
  assert.equal(told.destroyed, false, 'told every 500 ms');
  await at(3900);
  assert.equal(told.destroyed, false, 'its 1000 ms run from the last it was told (3000)');
  await at(4000);
  assert.equal(told.destroyed, true);
  assert.equal(watch.closed, 2);
});

test('stall watch: 0 turns it off', async () => {
  const { watch, connect, at } = watched(0);
  const socket = connect();
  socket.writableLength = 10;
  await at(0);
  await at(1_000_000);
  assert.equal(socket.destroyed, false);
  assert.equal(watch.closed, 0);
});

test('stall watch, with what clients took from the kernel: one at or above server.stallMinRate is never cut, one below it or taking nothing is cut after the timeout', async () => {
  const taken = new Map<unknown, number>();
  const { watch, connect, at } = watched(1000, async (sockets) => new Map(sockets.map((s) => [s, { taken: taken.get(s) ?? 0, unacked: 1 }])), 100);
  const steady = connect(); // takes 100 bytes/s: the floor
  const drip = connect(); // takes 50 bytes/s
  const still = connect(); // takes nothing
  for (const socket of [steady, drip, still]) socket.writableLength = 1_000_000; // the socket shows no progress at all
  for (let ms = 0; ms <= 10_000; ms += 250) {
    taken.set(steady, ms / 10);
    taken.set(drip, ms / 20);
    await at(ms);
    if (ms < 1000) assert.equal(still.destroyed || drip.destroyed, false, `nobody cut before the timeout (${ms} ms)`);
  }
  assert.equal(still.destroyed, true);
  assert.equal(drip.destroyed, true, 'below the floor');
  assert.equal(steady.destroyed, false, '10 timeouts long without progress the socket shows, at the floor');
  assert.equal(watch.closed, 2);
});

test('stall watch over real sockets (Linux): a client reading 320 KB/s of an 8 MB answer is not cut, one that stopped reading is', { skip: process.platform !== 'linux' }, async () => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-length': String(8 << 20) });
    response.end(Buffer.alloc(8 << 20, 120)); // one chunk: the socket's waiting bytes never go down before its last byte
  });
  const watchedSockets = new Set<Socket>();
  server.on('connection', (socket) => watchedSockets.add(socket));
  // the kernel's sockets are real, the watch's clock is the test's: 50 ms of it a step, in which the
  // slow client reads 16 KB, the kernel is given a few real ms to acknowledge what it read, and the
  // watch's reading of the kernel (/proc), if it asked for one, is awaited
  let now = 0;
  let reading: Promise<unknown> | undefined;
  const acked: AckedReader = (sockets) => (reading = procAcked(sockets));
  const watch = watchStalls(server, { timeoutMs: 2000, minRate: 1000, registry: new Registry(), logger: false, now: () => now, acked });
  watch.stop();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const reader = (perStep: number) => {
    const socket = connect(port, '127.0.0.1');
    let state: 'open' | 'closed' | 'reset' = 'open';
    socket.on('error', () => (state = 'reset'));
    socket.on('close', () => state === 'open' && (state = 'closed'));
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    /** How the connection ended, once its client reads again (a paused socket hears nothing). */
    const ended = async () => {
      socket.resume();
      for (let i = 0; i < 100 && state === 'open'; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return state;
    };
    return { state: () => state, step: () => perStep > 0 && socket.read(perStep), ended, stop: () => socket.destroy() };
  };
  const slow = reader(16_384); // 320 KB/s: the window opens every 64 KB (loopback's MSS), every 0.2 s
  const stopped = reader(0);
  try {
    // the server's 8 MB reach the kernel's buffers, which fill: until the client that reads nothing takes no more
    for (let last = -1, taken = 0; taken !== last; await new Promise((resolve) => setTimeout(resolve, 50))) {
      last = taken;
      taken = [...((await procAcked([...watchedSockets])) ?? new Map()).values()].reduce((sum, a) => sum + a.taken, 0);
    }
    for (; now <= 5500; now += 50) {
      slow.step();
      await new Promise((resolve) => setTimeout(resolve, 2)); // the kernel acknowledges what was read
      watch.sweep();
      if (reading !== undefined) await reading;
      reading = undefined;
      await new Promise((resolve) => setImmediate(resolve)); // the watch judges by the reading
    }
    // cut 1.5 timeouts after its socket stopped showing progress
    assert.equal(watch.closed, 1, 'one cut');
    assert.equal(slow.state(), 'open', 'took 320 KB/s, above the floor, though its socket showed no progress for twice the timeout');
    assert.notEqual(await stopped.ended(), 'open', 'took nothing once its buffers were full: cut');
  } finally {
    slow.stop();
    stopped.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('stall watch: once the kernel is asked, bytes waiting there count too: a writer that stops once the kernel took its last bytes does not save a client that takes nothing', async () => {
  const unacked = new Map<unknown, number>();
  const { watch, connect, at } = watched(1000, async (sockets) => new Map(sockets.map((s) => [s, { taken: 0, unacked: unacked.get(s) ?? 0 }])), 100);
  const stalled = connect();
  const done = connect();
  stalled.writableLength = done.writableLength = 10_000;
  unacked.set(stalled, 4_000_000);
  unacked.set(done, 4_000_000);
  await at(0);
  await at(500); // the first reading
  stalled.writableLength = done.writableLength = 0; // the kernel took what waited in the process
  stalled.emit('drain');
  done.emit('drain');
  unacked.set(done, 0); // this client took everything meanwhile
  await at(1000);
  await at(1500);
  assert.equal(stalled.destroyed, true, '1.5 timeouts after its socket stopped showing progress');
  assert.equal(done.destroyed, false);
  await at(5000);
  assert.equal(done.destroyed, false, 'no longer watched once its client had every byte');
  assert.equal(watch.closed, 1);
});
