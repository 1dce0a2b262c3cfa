/**
 * What starting streams cost everyone else (issue 58, item 2): --count clients, all from 127.0.0.1,
 * each ask for a streamed answer and never read it (the socket paused after its first chunk):
 * NDJSON of the logs listing from 7 days before the newest log, or (--kind events) a gzip event
 * stream of the logs resuming from a Last-Event-ID 15 minutes before the newest log. From the moment
 * they connect, one request at a time, every --every ms, each over a fresh connection, alternately
 * /health/liveness and a contract's results (a different limit each time, so the response cache
 * does not answer it), for --seconds. Reports p50, p99 and max and the statuses of each, over the
 * whole time and over its first 5 s, when the streams start. The streams' own progress is
 * `hostile`'s subject.
 *
 *   npm run bench -- stream-start --base http://127.0.0.1:5551 [--kind ndjson|events] [--count 32]
 */
import { request } from 'node:http';
import { type Socket, connect } from 'node:net';
import { loopbackUrl, numberOptions } from '../lib/cli.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { SECONDS, withDefault } from '../lib/options.ts';

const USAGE = `  --base URL           server origin, loopback only                  (default http://127.0.0.1:5551)
  --kind K             ndjson (a logs listing) or events (gzip, from a Last-Event-ID)   (default ndjson)
  --count N            never-reading stream clients                                      (default 32)
  --seconds S          seconds of probing from their connecting                           (default 20)
  --every MS           pause between two probes                                           (default 25)`;

const OPTIONS = {
  base: { type: 'string', default: 'http://127.0.0.1:5551' },
  kind: { type: 'string', default: 'ndjson' },
  count: { type: 'string', default: '32' },
  ...withDefault(SECONDS, '20'),
  every: { type: 'string', default: '25' },
} satisfies OptionsConfig;

interface Probe {
  at: number;
  ms: number;
  status: number;
}

const NS = 1_000_000_000n;
const timestamp = (ns: bigint) => `${ns / NS}.${(ns % NS).toString().padStart(9, '0')}`;

function get(port: number, path: string): Promise<{ status: number; ms: number; body: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 60_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, body: '' }));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

function summary(probes: Probe[]): string {
  if (probes.length === 0) return 'none';
  const ms = probes.map((p) => p.ms).sort((a, b) => a - b);
  const at = (q: number) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!);
  const statuses: Record<number, number> = {};
  for (const p of probes) statuses[p.status] = (statuses[p.status] ?? 0) + 1;
  return `${String(ms.length).padStart(4)} probes  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${Math.round(ms.at(-1)!)} ms  ${JSON.stringify(statuses)}`;
}

async function main({ values, fail }: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const num = numberOptions(fail);
  const port = Number(loopbackUrl(fail, 'base', values.base, 'http').port || 80);
  const count = num.positiveInteger('count', values.count, 32);
  const seconds = num.positive('seconds', values.seconds, 20);
  const every = num.integerAtLeast('every', values.every, 25, 0);
  if (values.kind !== 'ndjson' && values.kind !== 'events') fail('--kind is ndjson or events');

  const newest = await get(port, '/api/v1/contracts/results/logs?limit=1&order=desc');
  const log = (JSON.parse(newest.body) as { logs?: { timestamp: string }[] }).logs?.[0];
  if (!log) fail(`${values.base} has no logs (answered ${newest.status})`);
  const newestNs = BigInt(log!.timestamp.replace('.', ''));
  const head =
    values.kind === 'ndjson'
      ? `GET /api/v1/contracts/results/logs?timestamp=gte:${timestamp(newestNs - 7n * 86_400n * NS)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/x-ndjson\r\n\r\n`
      : `GET /api/v1/contracts/results/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\nLast-Event-ID: ${newestNs - 15n * 60n * NS}-0\r\n\r\n`;

  const sockets: Socket[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => {});
    socket.once('connect', () => socket.write(head));
    socket.once('data', () => socket.pause()); // the status line and some bytes, then never a read again
    sockets.push(socket);
  }
  const liveness: Probe[] = [];
  const contract: Probe[] = [];
  for (let n = 0; performance.now() - started < seconds * 1000; n++) {
    const at = performance.now() - started;
    const onContract = n % 2 === 1;
    const answer = await get(port, onContract ? `/api/v1/contracts/0.0.2001/results?limit=${1 + (n % 25)}` : '/health/liveness');
    (onContract ? contract : liveness).push({ at, ms: answer.ms, status: answer.status });
    await new Promise((resolve) => setTimeout(resolve, every));
  }
  for (const socket of sockets) socket.destroy();
  const first = (probes: Probe[]) => probes.filter((p) => p.at < 5000);
  process.stdout.write(
    `${count} never-reading ${values.kind} clients, ${seconds} s of probes from their connecting, Node ${process.version}\n` +
      `liveness           ${summary(liveness)}\nliveness, first 5 s ${summary(first(liveness))}\n` +
      `contract results   ${summary(contract)}\ncontract, first 5 s ${summary(first(contract))}\n`,
  );
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
