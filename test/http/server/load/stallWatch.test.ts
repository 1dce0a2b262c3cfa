import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { tookBytes, watchStalls } from '../../../../src/http/server/load/stallWatch.ts';

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

function watched(timeoutMs: number) {
  let now = 0;
  const server = new EventEmitter();
  const watch = watchStalls(server as unknown as Server, timeoutMs, new Registry(), false, () => now);
  watch.stop();
  const connect = () => {
    const socket = new FakeSocket();
    server.emit('connection', socket);
    return socket;
  };
  const at = (ms: number) => {
    now = ms;
    watch.sweep();
  };
  return { watch, connect, at };
}

test('stall watch: a connection whose waiting bytes do not go down for the timeout is reset; progress, drains and idle ones are not', () => {
  const { watch, connect, at } = watched(1000);
  const stuck = connect();
  const slow = connect();
  const drains = connect();
  const idle = connect();
  stuck.writableLength = slow.writableLength = drains.writableLength = 50_000;
  at(0);
  at(600);
  slow.writableLength = 40_000; // the client took some
  drains.writableLength = 60_000;
  at(900);
  drains.emit('drain'); // took everything, then more was written
  at(1000);
  assert.equal(stuck.destroyed, true, 'nothing taken for 1000 ms');
  assert.equal(slow.destroyed, false);
  assert.equal(drains.destroyed, false);
  at(1700);
  assert.equal(slow.destroyed, false, 'its 1000 ms run from its last progress (900)');
  at(1950);
  assert.equal(drains.destroyed, true, 'its 1000 ms run from its drain');
  assert.equal(slow.destroyed, true);
  at(10_000);
  assert.equal(idle.destroyed, false, 'nothing waits: never judged');
  assert.equal(watch.closed, 3);
});

test('stall watch: a connection told of its client\'s progress (tookBytes: a WebSocket\'s pongs) is not reset while its bytes stay', () => {
  const { watch, connect, at } = watched(1000);
  const told = connect();
  const stuck = connect();
  told.writableLength = stuck.writableLength = 50_000;
  at(0);
  for (let ms = 500; ms <= 3000; ms += 500) {
    at(ms);
    tookBytes(told as never);
  }
  assert.equal(stuck.destroyed, true);
  assert.equal(told.destroyed, false, 'told every 500 ms');
  at(3900);
  assert.equal(told.destroyed, false, 'its 1000 ms run from the last it was told (3000)');
  at(4000);
  assert.equal(told.destroyed, true);
  assert.equal(watch.closed, 2);
});

test('stall watch: 0 turns it off', () => {
  const { watch, connect, at } = watched(0);
  const socket = connect();
  socket.writableLength = 10;
  at(0);
  at(1_000_000);
  assert.equal(socket.destroyed, false);
  assert.equal(watch.closed, 0);
});
