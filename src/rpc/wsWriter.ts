/**
 * What one WebSocket connection sends, one message at a time and never more than the client takes:
 * an answer is written as it is read (eth_getLogs page by page, each page fragments of one message,
 * the next page read only once the last is written out), so an answer never sits whole in memory and
 * a client that stops reading holds one page and its socket's buffers, until server.stallTimeout
 * closes its connection (src/http/server/load/stallWatch.ts watches upgraded sockets too).
 * Notifications are whole messages; those that come while an answer is being written wait for its
 * end. Whatever waits for a client (unsent bytes in the socket, notifications held) is bounded by
 * rpc.ws.maxBufferedBytes: beyond, the client is too slow and its connection is closed (1008).
 *
 * A client that reads slowly but steadily is not stalled, yet its socket can show no progress for
 * longer than server.stallTimeout (the kernel's send buffer, megabytes, takes more only once a third
 * of it has drained). So a ping goes out after every PING_EVERY bytes, between frames (fragments of
 * at most FRAGMENT characters, so that a large page holds pings too), each with a random payload: a
 * pong that answers one tells the watch the client has read that far (tookBytes). A client that
 * reads nothing cannot know the payloads, and forged pongs count for nothing. (Pongs are read with
 * the client's messages: while a connection is not read, rpc.ws.maxInFlight messages of it waiting
 * (ws.ts), the watch sees its socket alone.)
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { Chunk } from './envelope.ts';

/** Bytes (about: characters) between two pings. */
const PING_EVERY = 16384;
/** Characters of one frame at most: no more than between two pings (a ping goes between frames). */
const FRAGMENT = PING_EVERY;
/** Pings awaiting their pong, at most (16 MB of bytes in flight); while that many wait, no more are sent. */
const MAX_PINGS = 1024;

/**
 * The errors of a client gone while its answer was written (its connection reset, a write after the
 * stall watch destroyed the socket, a broken pipe): the client's doing, not a fault here, worth a
 * line at info without a stack.
 */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_PREMATURE_CLOSE', 'WS_CLOSED']);

export const isClientGone = (err: unknown): boolean => typeof err === 'object' && err !== null && GONE.has(String((err as { code?: unknown }).code));

export interface WsWriter {
  /** A whole message (a notification): false when the connection is gone or was closed for it. */
  message(text: string): boolean;
  /** A message in chunks (an answer), after the messages before it; a chunk that fails closes the connection (1011; a client gone: reset). */
  answer(chunks: AsyncIterable<Chunk>): Promise<void>;
}

export function wsWriter(socket: WebSocket, maxBufferedBytes: number, onError: (err: unknown) => void, tookBytes: () => void = () => {}): WsWriter {
  let turn: Promise<void> = Promise.resolve();
  let writing = false;
  const held: string[] = [];
  let heldBytes = 0;
  const open = () => socket.readyState === socket.OPEN;

  /** The payloads (6 random bytes each, as numbers) of the pings awaiting their pong, oldest first. */
  const pings: number[] = [];
  let unpinged = 0;
  socket.on('pong', (data: Buffer) => {
    const at = data.length === 6 ? pings.indexOf(data.readUIntBE(0, 6)) : -1;
    if (at < 0) return;
    pings.splice(0, at + 1);
    tookBytes();
  });
  /** After `text` was handed to the socket: a ping, once PING_EVERY bytes went out since the last. */
  const sent = (text: Chunk) => {
    unpinged += text.length;
    if (unpinged < PING_EVERY || pings.length >= MAX_PINGS || !open()) return;
    unpinged = 0;
    const payload = randomBytes(6);
    pings.push(payload.readUIntBE(0, 6));
    socket.ping(payload);
  };
  const whole = (text: string) => {
    socket.send(text);
    sent(text);
  };

  const tooSlow = () => {
    socket.close(1008, 'Too slow: the client does not read its messages');
    socket.terminate();
    return false;
  };

  /** One frame, resolved once its bytes are handed to the socket (never, for a client that does not read: the close ends it). */
  const fragment = (text: Chunk, fin: boolean) =>
    new Promise<void>((resolve, reject) => {
      const closed = () => reject(Object.assign(new Error('the WebSocket closed'), { code: 'WS_CLOSED' }));
      socket.once('close', closed);
      socket.send(text, { fin, binary: false }, (err) => {
        socket.off('close', closed);
        if (err) reject(err);
        else resolve();
      });
      sent(text);
    });

  /**
   * `text` as frames of at most FRAGMENT characters (bytes), one after another. Bytes are sent as
   * they are, in a text message: the message's UTF-8 is checked whole, so a frame may end inside a
   * character's bytes.
   */
  const frame = async (text: Chunk, fin: boolean) => {
    let start = 0;
    do {
      let end = Math.min(text.length, start + FRAGMENT);
      if (typeof text === 'string') {
        // never between the halves of a surrogate pair: each frame's text is encoded on its own
        if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
        await fragment(text.slice(start, end), fin && end === text.length);
      } else await fragment(text.subarray(start, end), fin && end === text.length);
      start = end;
    } while (start < text.length);
  };

  const write = async (chunks: AsyncIterable<Chunk>) => {
    // the answers queued behind one a client never took read nothing once it is closed
    if (!open()) return;
    writing = true;
    let last: Chunk | undefined;
    try {
      for await (const chunk of chunks) {
        if (!open()) return;
        if (last !== undefined) {
          await frame(last, false);
          // the next page after the event loop's I/O: a socket with room and a database that answers
          // without I/O (the embedded one) would otherwise write page after page and starve every client
          await new Promise((resolve) => setImmediate(resolve));
        }
        last = chunk;
      }
      if (last !== undefined && open()) await frame(last, true);
    } catch (err) {
      if (isClientGone(err)) {
        // (the socket may still read as open: its close comes after the failed write's callback)
        onError(err);
        socket.terminate();
      } else if (open()) {
        onError(err);
        socket.close(1011, 'The answer failed while it was written');
      }
    } finally {
      writing = false;
      for (const text of held.splice(0)) if (open()) whole(text);
      heldBytes = 0;
    }
  };

  return {
    message(text) {
      if (!open()) return false;
      if (socket.bufferedAmount + heldBytes > maxBufferedBytes) return tooSlow();
      if (writing) {
        held.push(text);
        heldBytes += Buffer.byteLength(text);
      } else whole(text);
      return true;
    },
    answer(chunks) {
      turn = turn.then(() => write(chunks));
      return turn;
    },
  };
}
