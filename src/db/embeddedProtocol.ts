/**
 * The messages between the main thread (src/db/embeddedLink.ts) and the embedded database's thread
 * (src/db/embeddedWorker.ts). Each request gets one reply, with its id; replies come in the order of
 * the requests. Id 0 is the worker's first message: PGlite opened, or why it could not be.
 */

export interface WorkerData {
  /** The data directory; undefined: in memory. */
  dataDir: string | undefined;
}

export type Request =
  /** A connection starts: the session is reset for it (src/db/embeddedWorker.ts, openSession). */
  | { op: 'open'; id: number; connection: number }
  /** Frontend protocol bytes of a connection; answered with the backend bytes. */
  | { op: 'write'; id: number; connection: number; bytes: ArrayBuffer }
  /** A connection ended. */
  | { op: 'end'; id: number; connection: number }
  /** Closes PGlite (its data directory is then consistent on disk). */
  | { op: 'close'; id: number };

export interface Reply {
  id: number;
  /** The backend bytes of a `write`, transferred. */
  bytes?: ArrayBuffer;
  /** What failed: the request is rejected with it. */
  error?: string;
}
