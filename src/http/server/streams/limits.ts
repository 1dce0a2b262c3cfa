/**
 * The limits of streamed answers (NDJSON listings and live event streams, both additions), kept
 * apart from the request limiter: a stream leaves the limiter when it starts (admission.ts) and
 * waits for its client holding only a place here, never a database connection.
 *
 * - `streams.maxPerClient` streams of one client address at once (NDJSON and events together;
 *   Fastify's request.ip, so X-Forwarded-For with server.trustProxy): more get 429;
 * - `streams.maxReaders` streams reading stored pages at once per process (NDJSON answers, and
 *   live streams while they send their backlog): more get 503;
 * - `live.maxSubscribers` live streams per process: more get 503;
 * - `streams.maxConcurrentReads` page reads of those streams in flight at once per process: the
 *   others wait their turn (first come, first served), so that streams never take more of the
 *   database pool than that, whatever their number.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { type ErrorAnswer, httpErrors } from '../../answer/errorCatalog.ts';
import { Counts } from '../load/counts.ts';

export type StreamKind = 'ndjson' | 'events';

export interface StreamLimitSettings {
  maxPerClient: number;
  maxReaders: number;
  maxConcurrentReads: number;
  maxLive: number;
  /** The bytes one stream may hold for its client (streams.maxBufferedBytes). */
  maxBufferedBytes: number;
}

/** Streams write in chunks of about this many characters (one TCP segment per line cost most of a core). */
export const STREAM_CHUNK = 32 * 1024;

/**
 * The text of the page a stream may hold when it may hold `maxBufferedBytes` in all: the rest is
 * for the chunk being written and the socket's own buffer.
 */
export const pageBytesOf = (maxBufferedBytes: number): number => Math.max(STREAM_CHUNK, maxBufferedBytes - 3 * STREAM_CHUNK);

/**
 * A refused stream: its answer (httpErrors.tooManyStreams, liveStreamsFull, readersFull), sent with
 * sendError; the connection ends with it (a client that asks for streams it cannot have keeps no socket).
 */
export type Refusal = ErrorAnswer;

/** An open stream's place; `close` gives it back (once; later calls do nothing). */
export interface StreamPlace {
  readonly kind: StreamKind;
  /** Runs one page read in its turn among the streams' reads. */
  read<T>(work: () => Promise<T>): Promise<T>;
  /** The stream starts reading stored pages (a live stream's backlog): a Refusal when the readers are full. */
  startReading(): Refusal | undefined;
  /** The stream stops reading stored pages (a live stream joined the feed): it leaves the readers. */
  stopReading(): void;
  close(): void;
}

type RefusedBy = 'client' | 'readers' | 'live';

export class StreamLimits {
  private readonly byClient = new Counts();
  private readonly open: Record<StreamKind, number> = { ndjson: 0, events: 0 };
  private readers = 0;
  private reads = 0;
  private readonly queue: Array<() => void> = [];
  private readonly refused: Counter;
  /** The text of a page one stream may hold (pageBytesOf). */
  readonly pageBytes: number;

  constructor(
    private readonly settings: StreamLimitSettings,
    registry: Registry,
  ) {
    this.pageBytes = pageBytesOf(settings.maxBufferedBytes);
    const self = this;
    new Gauge({
      name: 'streams_open',
      help: 'Streamed answers open (NDJSON listings, live event streams)',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.set({ kind: 'ndjson' }, self.open.ndjson);
        this.set({ kind: 'events' }, self.open.events);
      },
    });
    new Gauge({ name: 'streams_reading', help: 'Streams reading stored pages (NDJSON answers, live backlogs)', registers: [registry], collect() { this.set(self.readers); } });
    new Gauge({ name: 'streams_reads_waiting', help: 'Page reads of streams waiting for their turn', registers: [registry], collect() { this.set(self.queue.length); } });
    this.refused = new Counter({ name: 'streams_refused_total', help: 'Streams refused by a limit', labelNames: ['limit'], registers: [registry] });
  }

  /**
   * A place for a stream of `kind` from `client`; `reading`: it starts by reading stored pages.
   * A Refusal when a limit is reached.
   */
  place(kind: StreamKind, client: string, reading: boolean): StreamPlace | Refusal {
    const { maxPerClient, maxReaders, maxLive } = this.settings;
    if (maxPerClient > 0 && this.byClient.of(client) >= maxPerClient) return this.refuse('client', httpErrors.tooManyStreams(maxPerClient));
    if (kind === 'events' && this.open.events >= maxLive) return this.refuse('live', httpErrors.liveStreamsFull);
    if (reading && this.readers >= maxReaders) return this.refuse('readers', httpErrors.readersFull);
    this.byClient.add(client);
    this.open[kind]++;
    if (reading) this.readers++;
    let isReading = reading;
    let closed = false;
    const stopReading = () => {
      if (!isReading) return;
      isReading = false;
      this.readers--;
    };
    const startReading = (): Refusal | undefined => {
      if (isReading || closed) return undefined;
      if (this.readers >= maxReaders) return this.refuse('readers', httpErrors.readersFull);
      isReading = true;
      this.readers++;
      return undefined;
    };
    return {
      kind,
      read: (work) => this.read(work),
      startReading,
      stopReading,
      close: () => {
        if (closed) return;
        closed = true;
        stopReading();
        this.open[kind]--;
        this.byClient.remove(client);
      },
    };
  }

  /** Open streams of `kind` (for tests and logs). */
  count(kind: StreamKind): number {
    return this.open[kind];
  }

  private refuse(limit: RefusedBy, refusal: Refusal): Refusal {
    this.refused.labels(limit).inc();
    return refusal;
  }

  private async read<T>(work: () => Promise<T>): Promise<T> {
    if (this.reads >= this.settings.maxConcurrentReads) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.reads++;
    try {
      return await work();
    } finally {
      // the turn passes straight to the next in line (the count stays), or is given back
      const next = this.queue.shift();
      if (next) next();
      else this.reads--;
    }
  }
}

/** Items of a page read after one of `items` items in `chars` characters: as many as fit in `pageBytes`, between `min` and `max`. */
export function pageSizeFor(items: number, chars: number, pageBytes: number, max: number, min = 10): number {
  if (items === 0 || chars === 0) return max;
  return Math.max(Math.min(min, max), Math.min(max, Math.floor((pageBytes * items) / chars)));
}

export const isRefusal = (value: StreamPlace | Refusal): value is Refusal => 'status' in value;

