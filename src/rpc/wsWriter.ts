/**
 * What one WebSocket connection sends, one message at a time and never more than the client takes:
 * an answer is written as it is read (eth_getLogs page by page, each page a fragment of one message,
 * the next page read only once the last is written out), so an answer never sits whole in memory and
 * a client that stops reading holds one page and its socket's buffers, until server.stallTimeout
 * closes its connection (src/http/server/load/stallWatch.ts watches upgraded sockets too).
 * Notifications are whole messages; those that come while an answer is being written wait for its
 * end. Whatever waits for a client (unsent bytes in the socket, notifications held) is bounded by
 * rpc.ws.maxBufferedBytes: beyond, the client is too slow and its connection is closed (1008).
 */
import type { WebSocket } from 'ws';

export interface WsWriter {
  /** A whole message (a notification): false when the connection is gone or was closed for it. */
  message(text: string): boolean;
  /** A message in chunks (an answer), after the messages before it; a chunk that fails closes the connection (1011). */
  answer(chunks: AsyncIterable<string>): Promise<void>;
}

export function wsWriter(socket: WebSocket, maxBufferedBytes: number, onError: (err: unknown) => void): WsWriter {
  let turn: Promise<void> = Promise.resolve();
  let writing = false;
  const held: string[] = [];
  let heldBytes = 0;
  const open = () => socket.readyState === socket.OPEN;

  const tooSlow = () => {
    socket.close(1008, 'Too slow: the client does not read its messages');
    socket.terminate();
    return false;
  };

  /** One frame, resolved once its bytes are handed to the socket (never, for a client that does not read: the close ends it). */
  const frame = (text: string, fin: boolean) =>
    new Promise<void>((resolve, reject) => {
      const closed = () => reject(new Error('the WebSocket closed'));
      socket.once('close', closed);
      socket.send(text, { fin }, (err) => {
        socket.off('close', closed);
        if (err) reject(err);
        else resolve();
      });
    });

  const write = async (chunks: AsyncIterable<string>) => {
    writing = true;
    let last: string | undefined;
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
      if (open()) {
        onError(err);
        socket.close(1011, 'The answer failed while it was written');
      }
    } finally {
      writing = false;
      for (const text of held.splice(0)) if (open()) socket.send(text);
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
      } else socket.send(text);
      return true;
    },
    answer(chunks) {
      turn = turn.then(() => write(chunks));
      return turn;
    },
  };
}
