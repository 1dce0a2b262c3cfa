/**
 * The main thread's end of the embedded database's thread (src/db/embeddedWorker.ts): starts it,
 * sends it requests and matches their replies, and notices when it is gone.
 *
 * The thread is unreferenced while no request is waiting, so that it keeps no process alive that has
 * nothing else to do (a command, a test that leaves a database open), and referenced while one is, so
 * that a process awaiting a statement does not end under it. A thread that dies (an uncaught error, an
 * abort of the WebAssembly, terminated) fails the requests waiting and every later one, and is told
 * once to `onExit`: statements then fail (503) instead of waiting forever.
 */
import { Worker } from 'node:worker_threads';
import type { Reply, Request, WorkerData } from './embeddedProtocol.ts';

/**
 * Starts the worker: its module beside the bundle (dist/embeddedWorker.js, scripts/build.mjs) in a
 * build, or beside this module under tsx (tests, `npm run seed`). There the thread registers tsx's
 * loader itself before importing the TypeScript: Node 20 does not apply the `--import tsx` a worker
 * inherits to the worker's own module.
 */
export function startWorker(data: WorkerData, moduleUrl: string = import.meta.url): Worker {
  if (!moduleUrl.endsWith('.ts')) return new Worker(new URL('./embeddedWorker.js', moduleUrl), { workerData: data });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const worker = JSON.stringify(new URL('./embeddedWorker.ts', moduleUrl).href);
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${worker}); });`, { eval: true, workerData: data });
}

type Pending = { resolve: (reply: Reply) => void; reject: (err: Error) => void };

/** Requests without their id, which the link assigns. */
type Outgoing = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

export class EmbeddedLink {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private nextConnection = 1;
  /** Why the thread can take no more requests; set once. */
  private gone: Error | undefined;
  private closing: Promise<void> | undefined;
  /** Resolves when the thread has ended. */
  private readonly exit: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly onExit: (err: Error) => void,
  ) {
    worker.on('message', (reply: Reply) => this.settle(reply));
    // an uncaught error in the thread: 'exit' follows, with its code; keep the first cause
    worker.on('error', (err) => void (this.gone ??= new Error(`the embedded database stopped: ${err.message}`, { cause: err })));
    this.exit = new Promise((resolve) => worker.on('exit', resolve));
    worker.on('exit', (code) => this.exited(code));
  }

  /** Starts the thread and waits for PGlite to open in it; rejects with PGlite's own message. */
  static async start(dataDir: string | undefined, onExit: (err: Error) => void): Promise<EmbeddedLink> {
    const worker = startWorker({ dataDir });
    const opened = new Promise<Reply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the embedded database's thread exited (code ${code}) while opening`)));
    });
    let first: Reply;
    try {
      first = await opened;
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    if (first.error !== undefined) {
      await worker.terminate();
      throw new Error(first.error);
    }
    worker.unref();
    return new EmbeddedLink(worker, onExit);
  }

  /** A number for a new connection's requests. */
  connectionId(): number {
    return this.nextConnection++;
  }

  /** Sends a request (its `bytes` transferred: the caller gives the buffer up) and waits for its reply. */
  request(request: Outgoing): Promise<Reply> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.nextId++;
    const message = { ...request, id } as Request;
    return new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(message, message.op === 'write' ? [message.bytes] : []);
    });
  }

  /** Closes PGlite (flushing the data directory) and ends the thread; for a thread that is gone, nothing. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.gone) return;
      try {
        await this.request({ op: 'close' });
      } finally {
        this.gone ??= new Error('the embedded database is closed');
        // a thread being terminated holds the event loop no more, whether referenced or not: without a
        // handle of its own, a process with nothing else to do ended before the close resolved
        const keepAlive = setInterval(() => {}, 60_000);
        try {
          await this.worker.terminate();
          await this.exit;
        } finally {
          clearInterval(keepAlive);
        }
      }
    })();
    return this.closing;
  }

  /**
   * Ends the thread at once, PGlite not closed: what a crash does to it (the tests of a dead thread).
   * The statements waiting and every later one fail, and `onExit` is told.
   */
  async kill(): Promise<void> {
    this.worker.ref();
    await this.worker.terminate();
    await this.exit;
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error !== undefined) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply);
  }

  private exited(code: number): void {
    const closed = this.gone !== undefined && this.closing !== undefined;
    this.gone ??= new Error(`the embedded database stopped: its thread exited with code ${code}`);
    for (const waiting of this.pending.values()) waiting.reject(this.gone);
    this.pending.clear();
    if (!closed) this.onExit(this.gone);
  }
}
