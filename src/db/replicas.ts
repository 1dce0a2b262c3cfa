/**
 * Reads spread across PostgreSQL read replicas (db.replicas.*). The service's Db, with each
 * statement run on a healthy replica in turn; the primary serves when none is healthy. A check every
 * db.replicas.checkInterval asks each replica whether it answers and how far it is behind the
 * primary (replicasHealth.ts): one that fails or lags beyond db.replicas.maxLag leaves the
 * rotation and comes back when a check finds it well again, one log line per change. A statement
 * that fails because its replica went away is run once more on the next in line (reads are
 * idempotent), and the replica leaves the rotation at once. Writes (exec, sessions: migrate and
 * seed, never serving) go to the primary. Work run under a pin (pin(), pin.ts) sends every
 * statement to the pin's server; a statement that has to run elsewhere marks the pin failed over
 * and moves it there.
 */
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Db, PoolStats, QueryObserver, Session } from './db.ts';
import { type ReadPin, activePin } from './pin.ts';
import {
  type CheckResult,
  LsnHistory,
  type ReadTarget,
  type ReplicaProbe,
  type ReplicaState,
  isConnectionLoss,
  isRetryable,
  parseLsn,
  pinnedOrder,
  readOrder,
  replicaLagMs,
  stateAfter,
  stateLine,
} from './replicasHealth.ts';
import { sql } from './sql.ts';

export interface Replica {
  /** host:port, for logs and metric labels. */
  name: string;
  db: Db;
}

export interface ReplicaOptions {
  maxLagMs: number;
  checkIntervalMs: number;
  logger?: Logger | undefined;
}

export interface ReplicaReport {
  name: string;
  state: ReplicaState;
  lagMs: number | undefined;
}

export interface ReplicatedDb extends Db {
  /** Each replica's state and last measured lag. */
  replicas(): ReplicaReport[];
  /** Runs one check of every replica now (tests; the periodic checks run anyway). */
  checkNow(): Promise<void>;
  /** Statements answered so far, by where they ran ('primary' or a replica's name). */
  readsBy(): Record<string, number>;
  pin(): ReadPin;
}

const PRIMARY_POSITION = sql`select (case when pg_is_in_recovery() then pg_last_wal_replay_lsn() else pg_current_wal_lsn() end)::text as lsn`;
const PROBE = sql`select pg_is_in_recovery() as recovery,
  pg_last_wal_replay_lsn()::text as replay,
  pg_last_wal_receive_lsn()::text as receive,
  extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as "replayAge"`;

/** The longest a check waits for an answer (a loaded server may be slow; a server that is gone refuses at once). */
const checkTimeoutMs = (intervalMs: number) => Math.max(intervalMs, 5000);

interface Slot extends Replica {
  state: ReplicaState;
  lagMs: number | undefined;
  /** The check under way, if any (a check never overlaps the previous one of its replica). */
  checking: Promise<void> | undefined;
}

/** A pin this Db handed out: the pin itself, and the server its statements go to now. */
interface PinState {
  pin: { server: string; failedOver: boolean };
  target: ReadTarget;
}

/** Runs `work`, or rejects after `ms`. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** `primary` with reads spread across `replicas`; checks start at once and end with close(). */
export function replicatedDb(primary: Db, replicas: readonly Replica[], options: ReplicaOptions): ReplicatedDb {
  const { maxLagMs, checkIntervalMs, logger } = options;
  const slots: Slot[] = replicas.map((r) => ({ ...r, state: 'unknown', lagMs: undefined, checking: undefined }));
  /** Every server's Db: the primary, then the replicas. */
  const members: readonly Db[] = [primary, ...slots.map((s) => s.db)];
  const history = new LsnHistory(maxLagMs + 4 * checkIntervalMs);
  const observers: QueryObserver[] = [];
  const reads: Record<string, number> = { primary: 0 };
  for (const slot of slots) reads[slot.name] = 0;
  let cursor = 0;
  let anyHealthy: boolean | undefined;
  const pins = new WeakMap<ReadPin, PinState>();

  const registry = new Registry();
  const label = ['replica'] as const;
  const healthyGauge = new Gauge({ name: 'db_replica_healthy', help: 'Whether a read replica is in the rotation (1) or not (0)', labelNames: label, registers: [registry] });
  const lagGauge = new Gauge({ name: 'db_replica_lag_seconds', help: 'How far a read replica was behind the primary at its last check', labelNames: label, registers: [registry] });
  const readCounter = new Counter({ name: 'db_reads_total', help: 'Statements answered, by where they ran (primary or a replica)', labelNames: ['target'], registers: [registry] });
  const retryCounter = new Counter({ name: 'db_read_retries_total', help: 'Statements run again elsewhere after their server went away, by where they failed', labelNames: ['target'], registers: [registry] });
  for (const slot of slots) healthyGauge.set({ replica: slot.name }, 0);

  const nameOf = (target: ReadTarget) => (target === 'primary' ? 'primary' : slots[target]!.name);
  const dbOf = (target: ReadTarget) => (target === 'primary' ? primary : slots[target]!.db);

  function enter(slot: Slot, next: ReplicaState, detail: { lagMs?: number; why?: string }): void {
    const line = stateLine(slot.name, slot.state, next, { ...detail, maxLagMs });
    slot.state = next;
    healthyGauge.set({ replica: slot.name }, next === 'healthy' ? 1 : 0);
    if (line) logger?.[line.level](line.msg);
    const healthy = slots.some((s) => s.state === 'healthy');
    if (healthy !== anyHealthy && slots.every((s) => s.state !== 'unknown')) {
      if (anyHealthy !== undefined || !healthy) {
        if (healthy) logger?.info('reads go to the replicas again');
        else logger?.warn('no replica is healthy: the primary serves the reads');
      }
      anyHealthy = healthy;
    }
  }

  function checkOne(slot: Slot): Promise<void> {
    slot.checking ??= probeOne(slot).finally(() => (slot.checking = undefined));
    return slot.checking;
  }

  async function probeOne(slot: Slot): Promise<void> {
    let result: CheckResult;
    try {
      const [probe] = await within(checkTimeoutMs(checkIntervalMs), slot.db.query<ReplicaProbe>(PROBE));
      result = { ok: true, lagMs: replicaLagMs(probe!, history, Date.now()) };
    } catch (err) {
      result = { ok: false, why: (err as Error).message };
    }
    if (result.ok) {
      slot.lagMs = result.lagMs;
      lagGauge.set({ replica: slot.name }, result.lagMs / 1000);
    }
    enter(slot, stateAfter(result, maxLagMs), result.ok ? { lagMs: result.lagMs } : { why: result.why });
  }

  async function checkAll(): Promise<void> {
    try {
      const [row] = await within(checkTimeoutMs(checkIntervalMs), primary.query<{ lsn: string | null }>(PRIMARY_POSITION));
      if (row?.lsn) history.add(Date.now(), parseLsn(row.lsn));
    } catch {
      // the primary's outage is the statements' and the watch's to report; lag falls back on the replicas' clocks
      history.prune(Date.now());
    }
    await Promise.all(slots.map(checkOne));
  }

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    if (stopped) return;
    await checkAll();
    if (!stopped) timer = setTimeout(loop, checkIntervalMs).unref();
  };
  if (slots.length > 0) void loop();

  /** The servers to try, in order: the rotation's next, or a pin's server first; the rotation moves on only without a pin. */
  function orderFor(pinned: PinState | undefined): ReadTarget[] {
    const states = slots.map((s) => s.state);
    if (pinned) return pinnedOrder(states, cursor, pinned.target);
    const order = readOrder(states, cursor);
    cursor = (cursor + 1) % Math.max(slots.length, 1);
    return order;
  }

  /** A pinned request's statement runs elsewhere than its pin's server: so do its next ones, and its data may mix two servers. */
  function moveTo(pinned: PinState | undefined, target: ReadTarget): void {
    if (!pinned || pinned.target === target) return;
    pinned.target = target;
    pinned.pin.failedOver = true;
  }

  async function read<R>(run: (db: Db) => Promise<R>): Promise<R> {
    const active = activePin();
    const pinned = active && pins.get(active);
    const order = orderFor(pinned);
    const started = observers.length > 0 ? performance.now() : 0;
    let error: Error | undefined;
    try {
      const first = order[0]!;
      moveTo(pinned, first);
      try {
        const rows = await run(dbOf(first));
        readCounter.inc({ target: nameOf(first) });
        reads[nameOf(first)]!++;
        return rows;
      } catch (err) {
        const second = order[1];
        if (!isRetryable(err) || second === undefined) throw err;
        if (first !== 'primary' && isConnectionLoss(err) && slots[first]!.state !== 'down') {
          enter(slots[first]!, 'down', { why: (err as Error).message });
        }
        retryCounter.inc({ target: nameOf(first) });
        moveTo(pinned, second);
        const rows = await run(dbOf(second));
        readCounter.inc({ target: nameOf(second) });
        reads[nameOf(second)]!++;
        return rows;
      }
    } catch (err) {
      error = err as Error;
      throw err;
    } finally {
      if (observers.length > 0) {
        const took = (performance.now() - started) / 1000;
        for (const observer of observers) observer(took, error);
      }
    }
  }

  return {
    kind: 'postgres',
    registry,
    query: <R>(statement: Parameters<Session['query']>[0], values?: readonly unknown[]) => read((db) => db.query<R>(statement, values)),
    exec: (text) => primary.exec(text),
    session: <T>(work: (session: Session) => Promise<T>) => primary.session(work),
    observe: (observer) => void observers.push(observer),
    queue: {
      observeWaits: (observer) => {
        for (const db of members) db.queue?.observeWaits(observer);
      },
      oldestWaitMs: (now) => Math.max(0, ...members.map((db) => db.queue?.oldestWaitMs(now) ?? 0)),
    },
    pin(): ReadPin {
      const target = orderFor(undefined)[0]!;
      const pin = { server: nameOf(target), failedOver: false };
      pins.set(pin, { pin, target });
      return pin;
    },
    poolStats(): PoolStats {
      const all = members.map((db) => db.poolStats());
      return {
        total: all.reduce((n, s) => n + s.total, 0),
        idle: all.reduce((n, s) => n + s.idle, 0),
        waiting: all.reduce((n, s) => n + s.waiting, 0),
      };
    },
    replicas: () => slots.map(({ name, state, lagMs }) => ({ name, state, lagMs })),
    checkNow: checkAll,
    readsBy: () => ({ ...reads }),
    async close() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(members.map((db) => db.close()));
    },
  };
}
