/**
 * The socket node-postgres connects through to the embedded database (its `stream` option): what a
 * connection writes goes to the database's thread (src/db/embeddedLink.ts), and the backend bytes
 * that come back are read by node-postgres' own Connection and protocol parser, as from a TCP socket.
 * So the embedded database runs every statement through the same driver code as PostgreSQL does.
 *
 * The bytes a connection writes in one go (node-postgres corks the messages of one statement: Parse,
 * Bind, Describe, Execute, Sync) travel as one message and one run in the thread. Two things a real
 * server would answer are answered here: the startup packet (PGlite's session exists already; node-
 * postgres gets AuthenticationOk and ReadyForQuery), and Terminate, which is not passed on (PGlite
 * would end its one backend); the connection's end is told to the thread instead.
 */
import { Duplex } from 'node:stream';
import type { EmbeddedLink } from './embeddedLink.ts';

/** AuthenticationOk, then ReadyForQuery (idle): a server's answer to a startup packet that needs no password. */
const STARTUP_ANSWER = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]);
/** Terminate ('X'), as node-postgres writes it when a connection ends. */
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

export class WorkerSocket extends Duplex {
  private readonly connection: number;
  private started = false;
  private opened = false;

  constructor(private readonly link: EmbeddedLink) {
    super();
    this.connection = link.connectionId();
  }

  /** node-postgres' `stream.connect(port, host)`: the session is reset for this connection, then 'connect'. */
  connect(): this {
    this.link.request({ op: 'open', connection: this.connection }).then(
      () => {
        this.opened = true;
        this.emit('connect');
      },
      (err: Error) => this.destroy(err),
    );
    return this;
  }

  // what node-postgres calls on a net.Socket, meaningless here
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _read(): void {
    // bytes are pushed as the thread answers; node-postgres reads them as they come
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.send([chunk]);
    callback();
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (err?: Error | null) => void): void {
    this.send(chunks.map((c) => c.chunk));
    callback();
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.ended();
    this.push(null);
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.ended();
    callback(err);
  }

  private send(chunks: Buffer[]): void {
    if (!this.started) {
      // the first thing node-postgres writes is its startup packet
      this.started = true;
      this.push(STARTUP_ANSWER);
      chunks = chunks.slice(1);
    }
    chunks = chunks.filter((chunk) => !chunk.equals(TERMINATE));
    if (chunks.length === 0) return;
    // one buffer of its own, given up to the thread: node-postgres' buffers may share memory with others
    const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    this.link.request({ op: 'write', connection: this.connection, bytes: bytes.buffer }).then(
      (reply) => {
        // an answer that comes after the end (node-postgres ended the connection meanwhile) has no reader
        if (reply.bytes && reply.bytes.byteLength > 0 && this.opened && !this.destroyed) this.push(Buffer.from(reply.bytes));
      },
      (err: Error) => this.destroy(err),
    );
  }

  /** Tells the thread once that this connection is over (it need not wait for the answer). */
  private ended(): void {
    if (!this.opened) return;
    this.opened = false;
    this.link.request({ op: 'end', connection: this.connection }).catch(() => {});
  }
}
