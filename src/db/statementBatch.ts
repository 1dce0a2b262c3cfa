/**
 * Statements of one event-loop turn sent to PostgreSQL on one connection, in one write.
 *
 * Under load, one turn of the event loop runs the handlers of several requests, and each sends a
 * statement. Sent one per connection, each is a write of its own, and on a loopback or virtualised
 * network a write that wakes a server process is the dearest thing a request does: in a CPU profile of
 * the bench mix the writes of statements took 19 % of the process's busy time, more than building the
 * answers (docs/performance.md). Here the statements of a turn join one batch: it takes one connection
 * from the pool, the statements are pipelined on it (node-postgres' `pipeline`, each with its own
 * Sync, answer and error) behind a cork, and the socket is uncorked once the turn's callbacks have run
 * (setImmediate), so they leave in one write and wake one server process. The connection goes back to
 * the pool when the batch's last answer is in.
 *
 * The price: the statements of a batch run one after the other on their server process, so a slow one
 * delays those behind it. Only statements whose cached plan is a bounded index scan come here (those
 * planned per execution, the searches whose cost depends on their values, hold a connection of their
 * own: db.ts runCustomPlanned), and a batch takes at most `maxStatements`.
 *
 * Everything the pool does still holds: a batch is one acquire and one release (the watchdog ends a
 * batch that overruns the statement timeout; pool stats and the connection timeout are the pool's),
 * and a connection that fails is discarded, not returned.
 */
import type pg from 'pg';

interface Batch {
  readonly client: Promise<pg.PoolClient>;
  /** Statements that joined it. */
  joined: number;
  /** Statements without their answer yet. */
  pending: number;
  /** Still taking statements (the turn it was opened in, below the cap). */
  open: boolean;
  corked: boolean;
  /** Set when the connection cannot be trusted: discarded on release. */
  discard?: Error;
}

/**
 * `client.query` in node-postgres' callback form, as a promise. Its own promise form kept each answer
 * alive long enough for the young-generation collector to copy it to the old generation (2.4 MB
 * promoted per scavenge against 0.2 MB, scavenges three times as long; docs/performance.md).
 */
export function queryByCallback(client: pg.ClientBase, config: string | pg.QueryArrayConfig): Promise<pg.QueryArrayResult> {
  return new Promise((resolve, reject) => {
    const answered = (err: Error | undefined, result: pg.QueryArrayResult): void => (err ? reject(err) : resolve(result));
    try {
      if (typeof config === 'string') client.query(config, answered as never);
      else client.query(config, answered);
    } catch (err) {
      reject(err as Error);
    }
  });
}

/** An error PostgreSQL answered (the statement failed, the connection is fine). */
export const answeredByServer = (err: Error): boolean => (err as { severity?: unknown }).severity === 'ERROR';

export class StatementBatcher {
  private current: Batch | undefined;

  constructor(
    private readonly pool: pg.Pool,
    /** Statements per batch at most; at least 2 (1 is no batching: do not construct one). */
    private readonly maxStatements: number,
  ) {}

  async query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult> {
    const batch = this.join();
    let client: pg.PoolClient;
    try {
      client = await batch.client;
    } catch (err) {
      batch.pending--;
      throw err;
    }
    if (!batch.corked) {
      batch.corked = true;
      const stream = client.connection.stream;
      stream.cork();
      setImmediate(() => stream.uncork());
    }
    try {
      return await queryByCallback(client, config);
    } catch (err) {
      if (!answeredByServer(err as Error)) batch.discard ??= err as Error;
      throw err;
    } finally {
      batch.pending--;
      this.settle(batch, client);
    }
  }

  private join(): Batch {
    let batch = this.current;
    if (batch === undefined || !batch.open || batch.joined >= this.maxStatements) {
      const opened: Batch = { client: this.pool.connect(), joined: 0, pending: 0, open: true, corked: false };
      // a failed connect is every joined statement's error (each awaits it); this only keeps it from
      // counting as unhandled when the batch has been left by the time it fails
      opened.client.catch(() => {});
      setImmediate(() => this.close(opened));
      this.current = batch = opened;
    }
    batch.joined++;
    batch.pending++;
    return batch;
  }

  /** The turn is over: no more statements join it; released at once if every answer is in. */
  private close(batch: Batch): void {
    batch.open = false;
    if (this.current === batch) this.current = undefined;
    if (batch.pending === 0) void batch.client.then((client) => this.settle(batch, client), () => {});
  }

  private settle(batch: Batch, client: pg.PoolClient): void {
    if (batch.open || batch.pending > 0 || batch.joined < 0) return;
    batch.joined = -1; // released once
    client.release(batch.discard);
  }
}
