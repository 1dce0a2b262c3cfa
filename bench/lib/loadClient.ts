/**
 * A closed-loop HTTP/1.1 load of keep-alive connections for the overload script (bench/overload.ts),
 * with the two client models of issue 31:
 *
 * - `at-once`: each connection sends its next request as soon as the answer came, a 503 included
 *   (as autocannon, and clients that retry at once);
 * - `retry-after`: after a 503 the connection waits the seconds its Retry-After names (1 when it
 *   names none) before it sends again.
 *
 * Each connection cycles through the paths from its own offset. A connection the server closes
 * after an answer (Connection: close) is opened again at once. Connection errors are counted by
 * code, and apart those that came in the middle of an answer (some of its bytes had arrived) from
 * those before any; a request not answered within the timeout counts as a timeout and its
 * connection is replaced.
 */
import { type Socket, connect } from 'node:net';

export type ClientModel = 'at-once' | 'retry-after';

export interface LoadOptions {
  host: string;
  port: number;
  paths: readonly string[];
  connections: number;
  /** Measured seconds, after the warm-up. */
  seconds: number;
  /**
   * Seconds of warm-up on the same connections before the measured ones (nothing of it is counted):
   * a warm-up on connections of its own would end by closing them all and start the measured part
   * with as many new connections at once, whose first answers measure that reconnection storm.
   */
  warmupSeconds?: number;
  model: ClientModel;
  timeoutMs: number;
}

export interface LoadResult {
  statuses: Map<number, number>;
  /** ms of each answer other than 503, and of each 503 */
  admitted: number[];
  shed: number[];
  /** connection errors by code, before any byte of an answer */
  errors: Map<string, number>;
  /** connection errors in the middle of an answer */
  midAnswer: number;
  timeouts: number;
  /** connections opened (the first ones included), during the measured part */
  connects: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/** Status, header block (lower case) and where the head ends, of the answer at the start of `buffer`. */
function head(buffer: Buffer): { status: number; headers: string; bodyStart: number } | undefined {
  const end = buffer.indexOf(HEAD_END);
  if (end < 0) return undefined;
  return { status: Number(buffer.toString('latin1', 9, 12)), headers: buffer.toString('latin1', 0, end).toLowerCase(), bodyStart: end + 4 };
}

const headerValue = (headers: string, name: string): string | undefined => {
  const at = headers.indexOf(`\r\n${name}:`);
  if (at < 0) return undefined;
  const start = at + name.length + 3;
  const stop = headers.indexOf('\r\n', start);
  return headers.slice(start, stop < 0 ? undefined : stop).trim();
};

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { host, port, paths, connections, seconds, model, timeoutMs, warmupSeconds = 0 } = options;
  const requests = paths.map((path) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`, 'latin1'));
  const result: LoadResult = { statuses: new Map(), admitted: [], shed: [], errors: new Map(), midAnswer: 0, timeouts: 0, connects: 0 };
  const measureFrom = performance.now() + warmupSeconds * 1000;
  const deadline = measureFrom + seconds * 1000;
  /** True once the warm-up is over: only then is anything counted. */
  const measuring = () => performance.now() >= measureFrom;
  let running = true;
  const sockets = new Set<Socket>();

  const client = (index: number) => {
    let next = Math.floor((index * paths.length) / connections);
    let socket: Socket | undefined;
    let buffer: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    let waiting = false;

    const open = () => {
      if (!running) return;
      if (measuring()) result.connects++;
      buffer = Buffer.alloc(0);
      const s = connect(port, host);
      socket = s;
      sockets.add(s);
      s.setNoDelay(true);
      s.on('connect', send);
      s.on('data', (chunk: Buffer) => {
        if (socket !== s) return;
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        take(s);
      });
      s.on('error', (err: NodeJS.ErrnoException) => {
        if (socket !== s || !running) return;
        if (!measuring()) {
          /* a warm-up error: not counted */
        } else if (buffer.length > 0) result.midAnswer++;
        else result.errors.set(err.code ?? err.message, (result.errors.get(err.code ?? err.message) ?? 0) + 1);
        socket = undefined;
        waiting = false;
        s.destroy();
        open();
      });
      s.on('close', () => {
        sockets.delete(s);
        if (socket !== s || !running) return;
        // closed by the server without an error: a request sent and not answered is an error
        if (waiting) {
          if (!measuring()) {
            /* a warm-up error: not counted */
          } else if (buffer.length > 0) result.midAnswer++;
          else result.errors.set('closed', (result.errors.get('closed') ?? 0) + 1);
        }
        socket = undefined;
        waiting = false;
        open();
      });
    };

    const send = () => {
      if (!running || socket === undefined) return;
      if (performance.now() >= deadline) return stop();
      sentAt = performance.now();
      waiting = true;
      socket.write(requests[next]!);
      next = (next + 1) % requests.length;
    };

    const take = (s: Socket) => {
      const answer = head(buffer);
      if (answer === undefined) return;
      const length = headerValue(answer.headers, 'content-length');
      let end: number;
      if (length !== undefined) {
        end = answer.bodyStart + Number(length);
        if (buffer.length < end) return;
      } else {
        const last = buffer.indexOf(LAST_CHUNK, answer.bodyStart - 2);
        if (last < 0) return;
        end = last + LAST_CHUNK.length;
      }
      const ms = performance.now() - sentAt;
      buffer = buffer.subarray(end);
      waiting = false;
      const { status } = answer;
      // an answer counts when its request was sent after the warm-up
      if (sentAt >= measureFrom) {
        result.statuses.set(status, (result.statuses.get(status) ?? 0) + 1);
        (status === 503 ? result.shed : result.admitted).push(ms);
      }
      const closing = headerValue(answer.headers, 'connection') === 'close';
      if (closing) {
        socket = undefined;
        s.destroy();
        sockets.delete(s);
      }
      const again = closing ? open : send;
      if (status === 503 && model === 'retry-after') {
        const seconds = Number(headerValue(answer.headers, 'retry-after') ?? '1');
        setTimeout(again, (Number.isFinite(seconds) ? seconds : 1) * 1000);
      } else {
        again();
      }
    };

    const check = () => {
      if (waiting && socket !== undefined && performance.now() - sentAt > timeoutMs) {
        if (measuring()) result.timeouts++;
        const s = socket;
        socket = undefined;
        waiting = false;
        s.destroy();
        open();
      }
    };
    open();
    return check;
  };

  let stopped: () => void = () => {};
  const done = new Promise<void>((resolve) => (stopped = resolve));
  const stop = () => {
    if (!running) return;
    running = false;
    clearInterval(watchdog);
    clearTimeout(timer);
    for (const s of sockets) s.destroy();
    sockets.clear();
    stopped();
  };
  const checks = Array.from({ length: connections }, (_, i) => client(i));
  const watchdog = setInterval(() => checks.forEach((check) => check()), 250);
  const timer = setTimeout(stop, (warmupSeconds + seconds) * 1000 + 50);
  return done.then(() => result);
}
