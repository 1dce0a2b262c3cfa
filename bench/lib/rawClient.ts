/**
 * HTTP/1.1 over a raw socket for the fuzzer: sends requests byte for byte as given (malformed ones
 * included, which fetch and node:http refuse to send), one at a time on a keep-alive connection,
 * and reads each answer's status line, headers and body (Content-Length, chunked, or up to the
 * close). A connection the server closes is replaced by a new one for the next request.
 */
import { type Socket, connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export type RawOutcome = { answer: RawAnswer } | { error: string };

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN), headers };
}

/** The end of a chunked body that starts at `from`, or -1 while it is incomplete. */
function chunkedEnd(buffer: Buffer, from: number, out: Buffer[]): number {
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return -1;
    const size = parseInt(buffer.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) throw new Error('bad chunk size');
    if (size === 0) {
      const trailerEnd = buffer.indexOf('\r\n\r\n', lineEnd);
      return trailerEnd < 0 ? -1 : trailerEnd + 4;
    }
    if (buffer.length < lineEnd + 2 + size + 2) return -1;
    out.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

export class RawClient {
  private socket: Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private closed = true;
  private wake: (() => void) | undefined;
  private failure: string | undefined;

  constructor(private readonly port: number, private readonly host = '127.0.0.1') {}

  private async open(): Promise<void> {
    this.buffer = Buffer.alloc(0);
    this.failure = undefined;
    const socket = connect(this.port, this.host);
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    this.closed = false;
    // events of a socket this client has already given up (closed after an answer) are not this one's
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.wake?.();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (this.socket !== socket) return;
      this.failure = err.code ?? err.message;
      this.wake?.();
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.closed = true;
      this.wake?.();
    });
    this.socket = socket;
  }

  /** Sends one request and waits for its answer; `bodyless`: the answer to HEAD carries no body. */
  async send(request: Buffer, bodyless: boolean, timeoutMs: number): Promise<RawOutcome> {
    try {
      if (this.closed || !this.socket) await this.open();
    } catch (err) {
      return { error: `connect: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
    this.socket!.write(request);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      let parsed: RawAnswer | undefined;
      try {
        parsed = this.parse(bodyless);
      } catch (err) {
        this.close();
        return { error: `unparsable answer: ${(err as Error).message}` };
      }
      if (parsed) {
        if (/\bclose\b/i.test(parsed.headers.connection ?? '')) this.close();
        return { answer: parsed };
      }
      if (this.closed) {
        const what = this.failure ?? 'closed';
        this.close();
        return { error: `${what} before a whole answer (${this.buffer.length} bytes)` };
      }
      if (performance.now() > deadline) {
        this.close();
        return { error: `no whole answer within ${timeoutMs} ms` };
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
    this.closed = true;
  }

  private parse(bodyless: boolean): RawAnswer | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const { status, headers } = parseHead(this.buffer.subarray(0, end).toString('latin1'));
    if (!Number.isFinite(status)) throw new Error(JSON.stringify(this.buffer.subarray(0, 80).toString('latin1')));
    const start = end + 4;
    let stop: number;
    let body: Buffer;
    if (bodyless || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      stop = start;
      body = Buffer.alloc(0);
    } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const chunks: Buffer[] = [];
      stop = chunkedEnd(this.buffer, start, chunks);
      if (stop < 0) return undefined;
      body = Buffer.concat(chunks);
    } else if (headers['content-length'] !== undefined) {
      stop = start + Number(headers['content-length']);
      if (this.buffer.length < stop) return undefined;
      body = this.buffer.subarray(start, stop);
    } else {
      if (!this.closed) return undefined;
      stop = this.buffer.length;
      body = this.buffer.subarray(start);
    }
    this.buffer = this.buffer.subarray(stop);
    if (status >= 100 && status < 200) return this.parse(bodyless);
    return { status, headers, body };
  }
}
