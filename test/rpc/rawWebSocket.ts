/**
 * A WebSocket client that does what `ws` never does: it opens the connection by hand and then reads
 * nothing (the socket paused after the upgrade's answer), the hostile client of test/rpc/wsHostile;
 * or sends exactly the upgrade's bytes a test wants (rawUpgrade), and reads frames only as fast as
 * the test takes them from the socket (FrameReader), the slow and lying clients of test/rpc/wsCrowd.
 */
import { randomBytes } from 'node:crypto';
import { type Socket, connect } from 'node:net';

/** The head of an upgrade of `path`: the usual headers, each of `headers` replacing its namesake (null: left out) or added. */
export function upgradeRequest(port: number, headers: Record<string, string | null> = {}, path = '/rpc'): string {
  const all: Record<string, string | null> = {
    Host: `127.0.0.1:${port}`,
    Upgrade: 'websocket',
    Connection: 'Upgrade',
    'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
    'Sec-WebSocket-Version': '13',
  };
  for (const [name, value] of Object.entries(headers)) {
    const same = Object.keys(all).find((key) => key.toLowerCase() === name.toLowerCase());
    if (same !== undefined && same !== name) delete all[same];
    all[name] = value;
  }
  const lines = Object.entries(all).flatMap(([name, value]) => (value === null ? [] : [`${name}: ${value}\r\n`]));
  return `GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/**
 * Sends `request` (an upgrade's head, as upgradeRequest makes it or any bytes) from `localAddress`:
 * the answer's status and head, and the socket, paused after the head (a first message after the
 * head is in `rest`, unread). A status 0: the connection closed without an answer.
 */
export function rawUpgrade(port: number, request: string, localAddress?: string): Promise<{ status: number; head: string; rest: Buffer; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
    socket.once('error', reject);
    let received = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.pause();
      const head = received.subarray(0, end).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, rest: received.subarray(end + 4), socket });
    };
    const onEnd = () => resolve({ status: 0, head: received.toString('latin1'), rest: Buffer.alloc(0), socket });
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.write(request);
  });
}

/** A connection to `path` upgraded to a WebSocket, paused: nothing after the 101 answer is read. */
export async function rawWebSocket(port: number, path = '/rpc'): Promise<Socket> {
  const { status, head, socket } = await rawUpgrade(port, upgradeRequest(port, {}, path));
  if (status !== 101) {
    socket.destroy();
    throw new Error(`upgrade refused: ${head.split('\r\n')[0]}`);
  }
  // bytes after the answer's head (a first message) stay unread, as every later one
  return socket;
}

/** A client's frame of `opcode` (1 text, 9 ping, 10 pong, ...): masked, as RFC 6455 asks of clients. */
export function clientFrame(opcode: number, data: Buffer): Buffer {
  const payload = Buffer.from(data);
  const mask = randomBytes(4);
  const length = payload.length;
  const first = 0x80 | opcode;
  const head =
    length < 126
      ? Buffer.from([first, 0x80 | length])
      : length < 65536
        ? Buffer.from([first, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([first, 0x80 | 127, 0, 0, 0, 0]), uint32(length)]);
  for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, payload]);
}

/** A client's text frame. */
export const textFrame = (text: string): Buffer => clientFrame(0x1, Buffer.from(text));

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/**
 * The server's frames on `socket`, from the bytes a test hands it (push): whole messages (the
 * fragments of one joined), each ping answered with its pong at once as every client does (unless
 * `pongs` is false), the close's code.
 */
export class FrameReader {
  readonly messages: string[] = [];
  /** Bytes taken so far. */
  taken = 0;
  pings = 0;
  closeCode: number | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly pongs = true,
  ) {}

  push(data: Buffer): void {
    this.taken += data.length;
    this.buffered = this.buffered.length === 0 ? data : Buffer.concat([this.buffered, data]);
    for (;;) {
      const b = this.buffered;
      if (b.length < 2) return;
      const opcode = b[0]! & 0x0f;
      const fin = (b[0]! & 0x80) !== 0;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      const payload = b.subarray(offset, offset + length);
      this.buffered = b.subarray(offset + length);
      if (opcode === 0x9) {
        this.pings++;
        if (this.pongs && !this.socket.destroyed) this.socket.write(clientFrame(0xa, payload));
      } else if (opcode === 0x8) {
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      } else if (opcode === 0x1 || opcode === 0x0) {
        this.fragments.push(Buffer.from(payload));
        if (fin) {
          this.messages.push(Buffer.concat(this.fragments).toString('utf8'));
          this.fragments = [];
        }
      }
    }
  }
}
