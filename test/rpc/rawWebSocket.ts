/**
 * A WebSocket client that does what `ws` never does: it opens the connection by hand and then reads
 * nothing (the socket paused after the upgrade's answer), the hostile client of test/rpc/wsHostile.
 */
import { randomBytes } from 'node:crypto';
import { type Socket, connect } from 'node:net';

/** A connection to `path` upgraded to a WebSocket, paused: nothing after the 101 answer is read. */
export function rawWebSocket(port: number, path = '/rpc'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    let head = '';
    const onData = (data: Buffer) => {
      head += data.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.pause();
      if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
      // bytes after the answer's head (a first message) stay unread, as every later one
      resolve(socket);
    };
    socket.on('data', onData);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

/** A client's text frame: masked, as RFC 6455 asks of clients. */
export function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x81, 0x80 | length])
      : length < 65536
        ? Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0]), uint32(length)]);
  for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, payload]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
