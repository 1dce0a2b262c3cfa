/**
 * A cut network to PostgreSQL (packets dropped, not refused) leaves a statement waiting for an
 * answer that never comes: the server's statement_timeout cannot reach the client, and TCP keepalive
 * takes about 40 s to give up. node-postgres' own `query_timeout` bounds it, but arms a timer per
 * statement, which cost 30 % of the throughput of the bench mix.
 *
 * The watchdog costs a Map write and delete per checkout: the pool's `acquire` stamps the client
 * with the time, `release` removes it, and one unref'd interval ends every client checked out for
 * longer than the limit (statement timeout + margin) by destroying its socket: the statement fails
 * at once ("Connection terminated", answered 503), and the pool drops the client and opens a new
 * connection for the next checkout.
 *
 * A `pool.query` checkout is one statement. A `session` holds its client across statements, so it
 * counts as one: serving runs no sessions; seed and migrate do, on pools without a statement
 * timeout, which get no watchdog.
 */
import type pg from 'pg';

/**
 * After statement_timeout, how long PostgreSQL's own cancellation gets to arrive. With the check
 * every 200 ms a statement is ended within the statement timeout + 0.8 s, so that its request is
 * answered within the statement timeout + 1 s (a margin of 1 s checked every 250 ms answered
 * after up to + 1.25 s: 6.2 s with a 5 s statement timeout in bench/scenarios/faults.ts).
 */
export const WATCHDOG_MARGIN_MS = 600;
const CHECK_EVERY_MS = 200;

export class QueryWatchdog {
  private readonly started = new Map<pg.PoolClient, number>();
  private readonly timer: NodeJS.Timeout;
  /** Clients ended so far. */
  ended = 0;

  constructor(
    private readonly limitMs: number,
    private readonly onEnd: (client: pg.PoolClient, heldMs: number) => void = () => {},
  ) {
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS).unref();
  }

  /** Watches the checkouts of `pool` until `stop`. */
  watch(pool: pg.Pool): this {
    pool.on('acquire', (client) => this.started.set(client, performance.now()));
    pool.on('release', (_err, client) => this.started.delete(client));
    return this;
  }

  /** Ends the clients held longer than the limit. */
  check(now = performance.now()): void {
    for (const [client, since] of this.started) {
      if (now - since <= this.limitMs) continue;
      this.started.delete(client);
      this.ended++;
      this.onEnd(client, now - since);
      // the socket itself: client.end() on a pipelining client waits for the answers in flight
      client.connection.stream.destroy();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.started.clear();
  }
}
