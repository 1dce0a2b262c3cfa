/**
 * HTTP/1.1 over a raw socket, for what fetch cannot do: send a request in pieces (a slow client),
 * hold a connection open without a request, reuse one connection, see exactly which headers and
 * bytes come back and whether the connection is closed or reset.
 */
import { type Socket, connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The header block as sent (names in their case). */
  head: string;
  body: string;
}

export class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiters = new Set<() => void>();
  /** 'open', then 'closed' (FIN or destroy) or 'reset' (ECONNRESET/EPIPE). */
  state: 'open' | 'closed' | 'reset' = 'open';

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.notify();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') this.state = 'reset';
      this.notify();
    });
    socket.on('close', () => {
      if (this.state === 'open') this.state = 'closed';
      this.notify();
    });
  }

  /** `from`: the local address to connect from (127.0.0.2 is loopback too: another client address). */
  static open(port: number, host = '127.0.0.1', from?: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host, ...(from === undefined ? {} : { localAddress: from }) });
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /**
   * Waits for one whole response (Content-Length bodies, or up to the close) and removes it from
   * the buffer. `head`: the answer to a HEAD request (no body, whatever Content-Length says).
   */
  async response(timeoutMs = 10_000, head = false): Promise<RawResponse> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse(head);
      if (parsed) return parsed;
      if (this.state !== 'open') throw new Error(`connection ${this.state} before a whole response; got ${JSON.stringify(this.buffer.toString('latin1'))}`);
      if (performance.now() > deadline) throw new Error(`no whole response within ${timeoutMs} ms; got ${JSON.stringify(this.buffer.toString('latin1'))}`);
      await this.change(deadline);
    }
  }

  /** Resolves with the final state once the connection is closed or reset. */
  async ended(timeoutMs = 10_000): Promise<'closed' | 'reset'> {
    const deadline = performance.now() + timeoutMs;
    while (this.state === 'open') {
      if (performance.now() > deadline) throw new Error(`still open after ${timeoutMs} ms`);
      await this.change(deadline);
    }
    return this.state;
  }

  /** What arrived after the responses taken so far. */
  rest(): string {
    return this.buffer.toString('latin1');
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(bodyless: boolean): RawResponse | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const length = bodyless ? 0 : headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    const bodyStart = end + 4;
    if (length === undefined && this.state === 'open') return undefined;
    const bodyEnd = length === undefined ? this.buffer.length : bodyStart + length;
    if (this.buffer.length < bodyEnd) return undefined;
    const body = this.buffer.subarray(bodyStart, bodyEnd).toString('utf8');
    this.buffer = this.buffer.subarray(bodyEnd);
    return { status: Number(statusLine!.split(' ')[1]), headers, head, body };
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter();
  }

  private change(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(1, deadline - performance.now()));
      this.waiters.add(done);
    });
  }
}

/** The text of a request without a body (GET by default). */
export const getRequest = (path: string, headers: Record<string, string> = {}, method = 'GET'): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** The text of a request without a body with exactly these header lines, in order (no Host unless given). */
export const rawRequest = (target: string, lines: ReadonlyArray<readonly [string, string]>, method = 'GET', version = '1.1'): string =>
  `${method} ${target} HTTP/${version}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;

/** Sends `text` on a connection of its own; the response and how the connection ended (or 'open'). */
export async function exchangeRaw(port: number, text: string, head = false): Promise<RawResponse & { ended: 'open' | 'closed' | 'reset' }> {
  const client = await RawConnection.open(port);
  try {
    client.write(text);
    const response = await client.response(10_000, head);
    const ended = response.headers.connection === 'close' ? await client.ended() : client.state;
    return { ...response, ended };
  } finally {
    client.destroy();
  }
}
