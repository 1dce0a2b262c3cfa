/**
 * Server-Sent Events (an addition: the live logs of the logs routes). A route with `events` answers
 * `Accept: text/event-stream` with a stream instead of a page:
 *
 * - the stream's place is taken from the stream limits (limits.ts: per client address, live
 *   streams per process, readers while it sends its backlog); a refused one gets 429 or 503 with
 *   Retry-After. Its connection leaves server.maxConnections and the request limiter once it opens;
 * - HEAD answers the stream's headers and ends;
 * - a comment line every `live.heartbeatMs` (15 s) keeps proxies from closing an idle stream;
 * - a client that does not read: once `streams.maxBufferedBytes` of live events wait in its socket, it
 *   gets a last `error` event saying so and is closed; a backlog is read page by page as the client
 *   takes it (drained), each page sized to that bound; a client that takes nothing at all for
 *   server.stallTimeout is cut by the stall watch (load/stallWatch.ts);
 * - a drain (SIGTERM) ends every stream with a last `error` event (reconnect with Last-Event-ID);
 * - one access line when a stream ends, with its events and bytes;
 * - metrics: events sent, slow consumers closed (streams_open{kind="events"}: limits.ts).
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import type { Config } from '../../../config/config.ts';
import { EVENT_STREAM_TYPE } from '../../request/accept.ts';
import { errorBody } from '../../request/errors.ts';
import type { EventSink, EventsRun } from '../../route.ts';
import { leaveAdmission } from '../load/admission.ts';
import { releaseConnection } from '../load/connectionCap.ts';
import { sendError } from '../../answer/respond.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import type { StreamLimits, StreamPlace } from './limits.ts';

/** One open stream. */
class Stream implements EventSink {
  events = 0;
  bytes = 0;
  #closed = false;
  #resolve!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.#resolve = resolve));

  constructor(
    private readonly response: ServerResponse,
    private readonly place: StreamPlace,
    private readonly maxBuffered: number,
    readonly pageBytes: number,
    private readonly onSlow: () => void,
  ) {
    response.once('close', () => this.#finish());
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** Bytes written and not yet taken by the client's socket. */
  get waiting(): number {
    return this.response.writableLength;
  }

  #write(chunk: string | Buffer): boolean {
    if (this.#closed) return false;
    this.response.write(chunk);
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return true;
  }

  keepUp(): boolean {
    if (this.#closed) return false;
    if (this.response.writableLength <= this.maxBuffered) return true;
    this.onSlow();
    this.close(`Too slow: more than ${this.maxBuffered} bytes of events were waiting for the client; reconnect with Last-Event-ID to resume`);
    return false;
  }

  drained(): Promise<void> {
    if (this.#closed || !this.response.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        resolve();
      };
      this.response.once('drain', done);
      void this.closed.then(done);
    });
  }

  read<T>(work: () => Promise<T>): Promise<T> {
    return this.place.read(work);
  }

  joinedLive(): void {
    this.place.stopReading();
  }

  sendEncoded(chunk: string | Buffer, events: number): boolean {
    if (!this.#write(chunk)) return false;
    this.events += events;
    return true;
  }

  comment(text: string): void {
    this.#write(`: ${text}\n\n`);
  }

  close(message: string): void {
    if (this.#closed) return;
    // the last event goes out even past the buffer limit: end() flushes it before the FIN
    this.response.end(`event: error\ndata: ${errorBody([message])}\n\n`);
    this.#finish();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.place.close();
    this.#resolve();
  }
}

export interface EventStreamsOptions {
  config: Config;
  limits: StreamLimits;
  registry: Registry;
}

/** The process's event streams: their places, heartbeat, metrics and shutdown. */
export class EventStreams {
  private readonly open = new Set<Stream>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly sent: Counter;
  private readonly slow: Counter;
  private readonly limits: StreamLimits;
  private readonly maxBuffered: number;
  private refusing = false;

  constructor({ config, limits, registry }: EventStreamsOptions) {
    this.limits = limits;
    this.maxBuffered = config.streams.maxBufferedBytes;
    this.heartbeat = setInterval(() => {
      // a stream whose client has not taken the last bytes needs no sign of life
      for (const stream of this.open) if (stream.waiting === 0) stream.comment('keep-alive');
    }, config.live.heartbeatMs).unref();
    this.sent = new Counter({ name: 'live_events_sent_total', help: 'Events sent on event streams', registers: [registry] });
    this.slow = new Counter({ name: 'live_slow_consumers_closed_total', help: 'Event streams closed because their client did not keep up', registers: [registry] });
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Answers `request` with a stream and runs `events.run` on it, in `place` (none for HEAD); resolves
   * when the stream ended. 503 with Retry-After when the process is shutting down or a backlog finds
   * the readers full.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, events: EventsRun, place: StreamPlace | undefined): Promise<void> {
    if (this.refusing) {
      place?.close();
      sendError(reply, httpErrors.streamsClosing);
      return;
    }
    const headers: Record<string, string> = {
      'access-control-allow-origin': '*',
      'x-request-id': request.id,
      'content-type': EVENT_STREAM_TYPE,
      'cache-control': 'no-cache',
      // nginx would buffer the stream otherwise
      'x-accel-buffering': 'no',
      ...(events.indexedThrough === undefined ? {} : { 'indexed-through': events.indexedThrough }),
      // the connection ends with the stream (a client reconnects for a new one)
      connection: 'close',
    };
    if (request.method === 'HEAD') {
      reply.hijack();
      reply.raw.writeHead(200, headers);
      reply.raw.end();
      return;
    }
    if (place === undefined) throw new Error('an event stream without its place');
    // a backlog makes it a reader: one more than streams.maxReaders is refused
    const refused = events.backlog ? place.startReading() : undefined;
    if (refused !== undefined) {
      place.close();
      sendError(reply, refused);
      return;
    }
    const started = performance.now();
    reply.hijack();
    const response = reply.raw;
    // its connection is now a stream: bounded by the stream limits, no longer by server.maxConnections nor the request limiter
    if (response.socket) releaseConnection(response.socket);
    leaveAdmission(request.raw);
    response.writeHead(200, headers);
    response.flushHeaders();
    const stream = new Stream(response, place, this.maxBuffered, this.limits.pageBytes, () => this.slow.inc());
    this.open.add(stream);
    // a first comment: the client sees the stream open before the first event
    stream.comment('stream open');
    try {
      await events.run(stream);
    } catch (err) {
      request.log.error({ err, url: request.url }, 'event stream failed');
      stream.close('Internal error');
    } finally {
      await stream.closed;
      this.open.delete(stream);
      this.sent.inc(stream.events);
      if (!response.writableEnded) response.end();
      request.log.info(
        { method: request.method, url: request.url, status: 200, ms: Math.round(performance.now() - started), events: stream.events, bytes: stream.bytes },
        'event stream ended',
      );
    }
  }

  /** Ends every stream with a last event (the process shuts down); later requests get 503. */
  closeAll(message = 'The server is shutting down; reconnect with Last-Event-ID to resume'): void {
    this.refusing = true;
    for (const stream of this.open) stream.close(message);
  }

  stop(): void {
    clearInterval(this.heartbeat);
    this.closeAll();
  }
}
