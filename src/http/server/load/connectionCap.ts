/**
 * The cap on open connections (server.maxConnections), kept here rather than by Node: Node closes
 * a connection beyond its `maxConnections` the moment it is accepted, and a client that has sent
 * its request by then (most have: they write as soon as they are connected) gets a reset, counted
 * as a connection error (issue 31: 486 at 1,024 connections, cap 1,000).
 *
 * A connection beyond the cap here never reaches the HTTP parser: after `holdMs` (so that a client
 * that reconnects at once cannot spin; at most `max` such connections wait, any more are answered
 * at once) it is answered the shed 503 with `Connection: close`, what it sent is read and dropped,
 * and it ends with a FIN (destroyed a second later at the latest): closed cleanly before a request
 * is read, never reset.
 *
 * A connection that becomes an event stream (live logs) leaves the count (releaseConnection):
 * streams have their own limit (live.maxSubscribers), and ten thousand of them must not take the
 * places of the connections that ask for pages.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { answerAndClose } from '../../answer/rawAnswer.ts';

/** The release of each counted connection: takes it out of its cap's count, once. */
const releases = new WeakMap<Socket, () => void>();

/** Takes `socket` out of its server's connection count (it stays open); no-op when it is not counted. */
export function releaseConnection(socket: Socket): void {
  releases.get(socket)?.();
}

export interface ConnectionCap {
  /** Connections open and served now (those beyond the cap not counted). */
  readonly open: number;
}

/**
 * Puts the cap in front of the HTTP server's own connection listener (the server must have only
 * that one yet). `refused` is told of each connection beyond the cap; `answer` is the raw answer.
 */
export function capConnections(server: Server, max: number, holdMs: number, answer: string, refused: () => void): ConnectionCap {
  const [parse, ...others] = server.listeners('connection') as Array<(socket: Socket) => void>;
  if (parse === undefined || others.length > 0) throw new Error('the HTTP server should have one connection listener, its parser');
  const cap = { open: 0 };
  if (max <= 0) return cap;
  let waiting = 0;
  server.removeListener('connection', parse);
  server.prependListener('connection', (socket: Socket) => {
    if (cap.open < max) {
      cap.open++;
      const release = () => {
        if (!releases.delete(socket)) return;
        cap.open--;
      };
      releases.set(socket, release);
      socket.once('close', release);
      parse.call(server, socket);
      return;
    }
    refused();
    socket.on('error', () => socket.destroy());
    const close = () => {
      socket.resume(); // what the client sent is read and dropped: a close with unread input would be a reset
      answerAndClose(socket, answer);
    };
    if (holdMs <= 0 || waiting >= max) return close();
    waiting++;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      waiting--;
      return true;
    };
    const timer = setTimeout(() => settle() && close(), holdMs);
    timer.unref();
    socket.once('close', () => settle() && clearTimeout(timer));
  });
  return cap;
}
