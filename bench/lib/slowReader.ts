/**
 * Slow readers for the fuzzer (bench/scenarios/fuzz.ts and its test, issue 44): a request whose answer is read
 * a few bytes per interval, or not at all after its first bytes (the status line and headers), by a
 * client that then disconnects midway. They run beside the fuzzer's other clients, whose check (every
 * request answered, no 5xx but the documented 503) must hold meanwhile.
 */
import { type Socket, connect } from 'node:net';
import { type FuzzRequest, type SlowPlan, type SlowRead, serialize } from './fuzzInput.ts';

export type { SlowPlan, SlowRead };

export interface SlowOutcome {
  /** The status of the answer, when its status line came before the disconnect. */
  status?: number;
  bytesRead: number;
  /** `disconnected`: by the client, at its time; `closed by the server` before that; or the socket error. */
  ended: 'disconnected' | 'closed by the server' | `error ${string}` | `connect ${string}`;
}

/** Sends `request` on a connection of its own and reads the answer as `plan` says, until its disconnect. */
export function readSlowly(port: number, host: string, request: Buffer, plan: SlowPlan): Promise<SlowOutcome> {
  return new Promise((resolve) => {
    const outcome: SlowOutcome = { bytesRead: 0, ended: 'disconnected' };
    let head = Buffer.alloc(0);
    let connected = false;
    let timer: NodeJS.Timeout | undefined;
    let disconnect: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (ended: SlowOutcome['ended']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(disconnect);
      outcome.ended = ended;
      socket.destroy();
      resolve(outcome);
    };
    const socket: Socket = connect({
      port,
      host,
      onread: {
        buffer: Buffer.alloc(plan.mode === 'trickle' ? plan.bytes : 1024),
        callback: (n: number, buffer: Uint8Array): boolean => {
          outcome.bytesRead += n;
          if (outcome.status === undefined && head.length < 64) {
            head = Buffer.concat([head, buffer.subarray(0, n)]);
            const line = /^HTTP\/\d\.\d (\d{3})/.exec(head.toString('latin1'));
            if (line) outcome.status = Number(line[1]);
          }
          // paused after every read; a trickle resumes after its interval, a stall never
          if (plan.mode === 'trickle') timer = setTimeout(() => socket.resume(), plan.intervalMs);
          return false;
        },
      },
    });
    socket.once('connect', () => {
      connected = true;
      socket.write(request);
      disconnect = setTimeout(() => finish('disconnected'), plan.disconnectAfterMs);
    });
    socket.on('end', () => finish('closed by the server'));
    socket.on('close', () => finish('closed by the server'));
    socket.on('error', (err: NodeJS.ErrnoException) => finish(connected ? `error ${err.code ?? err.message}` : `connect ${err.code ?? err.message}`));
  });
}

export interface SlowSummary {
  reads: number;
  /** By how each ended, and by status (`none`: no status line before it ended). */
  ended: Map<string, number>;
  statuses: Map<string, number>;
  bytesRead: number;
}

/**
 * `readers` slow readers, each taking the next of `reads` in turn, until `until` settles (the
 * fuzzer's other clients are done) or `reads` runs out; resolves with what they saw.
 */
export async function runSlowReaders(port: number, host: string, reads: Iterator<SlowRead>, readers: number, until: Promise<unknown>): Promise<SlowSummary> {
  const summary: SlowSummary = { reads: 0, ended: new Map(), statuses: new Map(), bytesRead: 0 };
  let stop = false;
  const stopping = () => {
    stop = true;
  };
  until.then(stopping, stopping);
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  await Promise.all(
    Array.from({ length: readers }, async () => {
      while (!stop) {
        const next = reads.next();
        if (next.done) return;
        const outcome = await readSlowly(port, host, serialize(next.value.request), next.value.plan);
        summary.reads++;
        summary.bytesRead += outcome.bytesRead;
        add(summary.ended, outcome.ended.replace(/\d+/g, 'N'));
        add(summary.statuses, outcome.status === undefined ? 'none' : String(outcome.status));
      }
    }),
  );
  return summary;
}

/** One line of a summary: `N slow reads (B bytes read): ended ...; statuses ...`. */
export function describeSlow(s: SlowSummary): string {
  const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
  return `${s.reads} slow reads (${s.bytesRead} bytes read): ended ${list(s.ended) || '-'}; statuses ${list(s.statuses) || '-'}`;
}
