/**
 * The decisions of read-replica routing, without I/O: how far behind the primary a replica is,
 * which failures mean that a replica went away, what state a check puts a replica in, and in which
 * order a read tries the replicas and the primary.
 */
import { rootCause } from './db.ts';

/** What the periodic check asks a replica. */
export interface ReplicaProbe {
  /** pg_is_in_recovery(): false for a server that is no (longer a) standby; its data is current. */
  recovery: boolean;
  /** pg_last_wal_replay_lsn() and pg_last_wal_receive_lsn() as text ("16/B374D848"), null when not a standby. */
  replay: string | null;
  receive: string | null;
  /** now() - pg_last_xact_replay_timestamp() in seconds, on the replica's own clock; null before any replay. */
  replayAge: number | null;
}

/** A WAL position ("X/Y", two hex halves) as one number. */
export function parseLsn(text: string): bigint {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  if (!match) throw new Error(`not a WAL position: ${JSON.stringify(text)}`);
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

/**
 * The primary's WAL position as sampled at each check. A replica's lag is the age of the oldest
 * sample it has not replayed yet: how long ago the primary had data the replica still lacks. This
 * needs no clock shared between hosts, and an idle primary (no new WAL) gives lag 0, where
 * now() - pg_last_xact_replay_timestamp() alone would grow without bound.
 */
export class LsnHistory {
  readonly #samples: Array<{ atMs: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  add(atMs: number, lsn: bigint): void {
    const last = this.#samples.at(-1);
    // a sample of the same position adds nothing: the oldest one of it dates the data
    if (!last || lsn > last.lsn) this.#samples.push({ atMs, lsn });
    this.prune(atMs);
  }

  prune(nowMs: number): void {
    // keep the newest sample always: a replica behind it is behind by at least its age
    while (this.#samples.length > 1 && this.#samples[1]!.atMs < nowMs - this.keepMs) this.#samples.shift();
    if (this.#samples.length === 1 && this.#samples[0]!.atMs < nowMs - this.keepMs * 4) this.#samples.shift();
  }

  get size(): number {
    return this.#samples.length;
  }

  /** ms behind the primary of a replica that has replayed up to `replay`; undefined without samples. */
  lagMs(replay: bigint, nowMs: number): number | undefined {
    if (this.#samples.length === 0) return undefined;
    const oldestMissing = this.#samples.find((sample) => sample.lsn > replay);
    return oldestMissing === undefined ? 0 : Math.max(0, nowMs - oldestMissing.atMs);
  }
}

/** A replica's lag in ms from its probe: by the primary's WAL history when there is one, else by its own replay clock. */
export function replicaLagMs(probe: ReplicaProbe, history: LsnHistory, nowMs: number): number {
  if (!probe.recovery || probe.replay === null) return 0;
  const byHistory = history.lagMs(parseLsn(probe.replay), nowMs);
  if (byHistory !== undefined) return byHistory;
  // the primary does not answer: all received WAL replayed counts as current
  if (probe.receive !== null && parseLsn(probe.receive) <= parseLsn(probe.replay)) return 0;
  return probe.replayAge === null ? 0 : Math.max(0, probe.replayAge * 1000);
}

const CONNECTION_CODES = new Set([
  '57P01', // admin_shutdown: the server is stopping (pg_ctl stop -m fast)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
const LOST_MESSAGES = /connection terminated|terminating connection|connection error|timeout exceeded when trying to connect|not queryable|server closed the connection/i;

/** True when `err` says the server went away or refused the connection (not an error of the statement itself). */
export function isConnectionLoss(err: unknown): boolean {
  const cause = rootCause(err) as Error & { code?: string };
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (code.startsWith('08') || CONNECTION_CODES.has(code) || SOCKET_CODES.has(code)) return true;
  return LOST_MESSAGES.test(cause?.message ?? '');
}

/** True when a read that failed with `err` may run again elsewhere: the server went away, or a standby cancelled it (recovery conflict). */
export function isRetryable(err: unknown): boolean {
  const cause = rootCause(err) as Error & { code?: string };
  return isConnectionLoss(err) || cause?.code === '40001';
}

export type ReplicaState = 'unknown' | 'healthy' | 'lagging' | 'down';

/** The result of one check of a replica. */
export type CheckResult = { ok: true; lagMs: number } | { ok: false; why: string };

export const stateAfter = (result: CheckResult, maxLagMs: number): ReplicaState =>
  !result.ok ? 'down' : result.lagMs > maxLagMs ? 'lagging' : 'healthy';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The one log line of a replica changing state; undefined when it did not. */
export function stateLine(
  name: string,
  previous: ReplicaState,
  next: ReplicaState,
  detail: { lagMs?: number; why?: string; maxLagMs: number },
): { level: 'info' | 'warn'; msg: string } | undefined {
  if (previous === next) return undefined;
  switch (next) {
    case 'unknown':
      return undefined;
    case 'healthy':
      return { level: 'info', msg: `replica ${name} ${previous === 'unknown' ? 'is' : 'is back'} in the rotation (lag ${seconds(detail.lagMs ?? 0)})` };
    case 'lagging':
      return {
        level: 'warn',
        msg: `replica ${name} is ${seconds(detail.lagMs ?? 0)} behind the primary (db.replicas.maxLag ${seconds(detail.maxLagMs)}): out of the rotation until it catches up`,
      };
    case 'down':
      return { level: 'warn', msg: `replica ${name} is down: ${detail.why ?? 'no answer'}; out of the rotation, checked again until it answers` };
  }
}

/** Where a read may run: a replica by its index, or the primary. */
export type ReadTarget = number | 'primary';

/**
 * The order a read tries: the healthy replicas in turn from `cursor` (round robin), then the
 * primary, then replicas that answer but lag or were not checked yet (better stale than none
 * when the primary is gone). Replicas that are down are not tried.
 */
export function readOrder(states: readonly ReplicaState[], cursor: number): ReadTarget[] {
  const n = states.length;
  const rotated = Array.from({ length: n }, (_, i) => (cursor + i) % n);
  return [
    ...rotated.filter((i) => states[i] === 'healthy'),
    'primary',
    ...rotated.filter((i) => states[i] === 'lagging' || states[i] === 'unknown'),
  ];
}

/**
 * The order a statement of a pinned request tries: the pin's server first, unless it is down (one
 * that lags or was not checked yet still answers, consistently with what the request read there
 * before), then the others as readOrder would try them.
 */
export function pinnedOrder(states: readonly ReplicaState[], cursor: number, pinned: ReadTarget): ReadTarget[] {
  const others = readOrder(states, cursor).filter((target) => target !== pinned);
  return pinned !== 'primary' && states[pinned] === 'down' ? others : [pinned, ...others];
}
