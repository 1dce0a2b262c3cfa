/**
 * Server-Sent Events (an addition: the live logs of the logs routes). A route with `events` answers
 * `Accept: text/event-stream` with a stream instead of a page:
 *
 * - at most `live.maxSubscribers` streams per process; past that, 503 with Retry-After; a stream's
 *   connection does not count against `server.maxConnections`;
 * - a comment line every `live.heartbeatMs` (15 s) keeps proxies from closing an idle stream;
 * - a client that does not read: once `live.maxBufferedBytes` of live events wait in its socket, it
 *   gets a last `error` event saying so and is closed (a slow consumer never holds much more than
 *   that in memory); a backlog is read page by page as the client takes it (drained);
 * - a drain (SIGTERM) ends every stream with a last `error` event (reconnect with Last-Event-ID);
 * - one access line when a stream ends, with its events and bytes;
 * - metrics: subscribers, events sent, slow consumers closed.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Config } from '../../config/config.ts';
import { errorBody } from '../request/errors.ts';
import type { EventSink } from '../route.ts';
import { releaseConnection } from './plugins/connectionCap.ts';
import { sendError } from './respond.ts';

export const EVENT_STREAM_TYPE = 'text/event-stream';

/** True when the client asks for an event stream (`text/event-stream` in Accept, quality above 0). */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('event-stream')) return false;
  return accept.split(',').some((part) => {
    const [type, ...params] = part.trim().split(';');
    if (type?.trim().toLowerCase() !== EVENT_STREAM_TYPE) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** One open stream. */
class Stream implements EventSink {
  events = 0;
  bytes = 0;
  #closed = false;
  #resolve!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.#resolve = resolve));

  constructor(
    private readonly response: ServerResponse,
    private readonly maxBuffered: number,
    private readonly onSlow: () => void,
  ) {
    response.once('close', () => this.#finish());
  }

  get isClosed(): boolean {
    return this.#closed;
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
    if (this.#closed || this.response.writableLength <= this.maxBuffered / 2) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.response.off('drain', done);
        resolve();
      };
      this.response.once('drain', done);
      void this.closed.then(done);
    });
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
    this.#resolve();
  }
}

export interface EventStreamsOptions {
  config: Config;
  registry: Registry;
}

/** The process's event streams: their limit, heartbeat, metrics and shutdown. */
export class EventStreams {
  private readonly open = new Set<Stream>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly sent: Counter;
  private readonly slow: Counter;
  private readonly settings: Config['live'];
  private refusing = false;

  constructor({ config, registry }: EventStreamsOptions) {
    this.settings = config.live;
    this.heartbeat = setInterval(() => {
      for (const stream of this.open) stream.comment('keep-alive');
    }, this.settings.heartbeatMs).unref();
    const open = this.open;
    new Gauge({
      name: 'live_subscribers',
      help: 'Open event streams (live logs)',
      registers: [registry],
      collect() {
        this.set(open.size);
      },
    });
    this.sent = new Counter({ name: 'live_events_sent_total', help: 'Events sent on event streams', registers: [registry] });
    this.slow = new Counter({ name: 'live_slow_consumers_closed_total', help: 'Event streams closed because their client did not keep up', registers: [registry] });
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Answers `request` with a stream and runs `run` on it; resolves when the stream ended. 503 with
   * Retry-After when the process has its most streams open or is shutting down.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, run: (sink: EventSink) => Promise<void>, headers: Record<string, string>): Promise<void> {
    if (this.refusing || this.open.size >= this.settings.maxSubscribers) {
      reply.header('retry-after', '5');
      sendError(reply, 503, ['Service unavailable']);
      return;
    }
    const started = performance.now();
    reply.hijack();
    const response = reply.raw;
    // its connection is now a stream, bounded by live.maxSubscribers, no longer by server.maxConnections
    if (response.socket) releaseConnection(response.socket);
    response.writeHead(200, {
      ...headers,
      'access-control-allow-origin': '*',
      'x-request-id': request.id,
      'content-type': EVENT_STREAM_TYPE,
      'cache-control': 'no-cache',
      // nginx would buffer the stream otherwise
      'x-accel-buffering': 'no',
      // the connection ends with the stream (a client reconnects for a new one)
      connection: 'close',
    });
    response.flushHeaders();
    const stream = new Stream(response, this.settings.maxBufferedBytes, () => this.slow.inc());
    this.open.add(stream);
    // a first comment: the client sees the stream open before the first event
    stream.comment('stream open');
    try {
      await run(stream);
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
