/**
 * The thread the embedded database runs in (src/db/embeddedLink.ts starts it). PGlite executes every
 * statement synchronously in WebAssembly: on the main thread a slow statement, or many small ones for
 * streams, held the event loop, and with it health checks and every other request. Here it holds only
 * this thread.
 *
 * It speaks the PostgreSQL wire protocol as the main thread's node-postgres writes it: each `write`
 * carries the frontend bytes one connection wrote in one event-loop turn, runs them through
 * `execProtocolRawStream` and answers with the backend bytes, which node-postgres parses there as it
 * parses a socket's. Requests run one at a time, in the order they were posted: PGlite is one session.
 * Backend bytes leave as a transferred ArrayBuffer, not a copy.
 */
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { parentPort, workerData } from 'node:worker_threads';
import type { Reply, Request, WorkerData } from './embeddedProtocol.ts';

/** Sync: ends an extended-query sequence a closed connection may have left half sent. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * PostgreSQL's 128 MB of shared buffers are WebAssembly memory, resident once touched, and a second
 * copy of pages the file system holds anyway: in the kernel's page cache (a data directory) or in this
 * thread's own memory (--memory). 32 MB took the idle RSS of a start on the demo network from 377-410
 * MB to 242-261 MB with the demo mix's throughput within the runs' spread (docs/history/reliability-until-2026-12-07.md).
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

const port = parentPort!;
const { dataDir } = workerData as WorkerData;

/** The connection whose bytes the session serves; a connection that opens after it takes the session over. */
let current: number | undefined;

/** An error as text for the main thread; Emscripten throws objects without a message (ErrnoError). */
function describe(err: unknown): string {
  const e = err as { message?: unknown; name?: unknown; errno?: unknown };
  if (typeof e?.message === 'string' && e.message) return e.message;
  if (typeof e?.name === 'string') return e.errno === undefined ? e.name : `${e.name} (errno ${String(e.errno)})`;
  return String(err);
}

/** Runs frontend bytes, returning all the backend bytes in one buffer of their own (transferable). */
async function run(pglite: PGlite, bytes: Uint8Array): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  await pglite.execProtocolRawStream(bytes, {
    // a view into the WebAssembly memory, valid during the call only
    onRawData: (chunk) => {
      chunks.push(chunk.slice());
      length += chunk.length;
    },
  });
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * A new connection gets the session as a new PostgreSQL connection would find it: the transaction a
 * connection that ended left open rolled back, and its prepared statements, settings and temporary
 * tables gone (node-postgres prepares each named statement once per connection, and would otherwise
 * meet the old connection's).
 */
async function openSession(pglite: PGlite, connection: number): Promise<void> {
  current = connection;
  await run(pglite, SYNC);
  if (pglite.isInTransaction()) await pglite.exec('rollback');
  await pglite.exec('discard all');
}

async function handle(pglite: PGlite, request: Request): Promise<Reply> {
  switch (request.op) {
    case 'open':
      await openSession(pglite, request.connection);
      return { id: request.id };
    case 'write': {
      if (request.connection !== current) throw new Error('the embedded database session was taken over by another connection');
      const bytes = await run(pglite, new Uint8Array(request.bytes));
      return { id: request.id, bytes: bytes.buffer as ArrayBuffer };
    }
    case 'end':
      if (request.connection === current) current = undefined;
      return { id: request.id };
    case 'close':
      await pglite.close();
      return { id: request.id };
  }
}

async function main(): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dataDir ?? 'memory://', { extensions: { btree_gist, pg_trgm }, startParams: START_PARAMS });
  } catch (err) {
    port.postMessage({ id: 0, error: describe(err) } satisfies Reply);
    return;
  }
  port.postMessage({ id: 0 } satisfies Reply);
  let queue = Promise.resolve();
  port.on('message', (request: Request) => {
    queue = queue.then(async () => {
      let reply: Reply;
      try {
        reply = await handle(pglite, request);
      } catch (err) {
        reply = { id: request.id, error: describe(err) };
      }
      port.postMessage(reply, reply.bytes ? [reply.bytes] : []);
    });
  });
}

void main();
