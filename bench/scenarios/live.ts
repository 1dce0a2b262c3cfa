/**
 * Live logs under load (issue 26): N subscribers with a filter mix on one process, over a live writer
 * adding a block every 2 s to the database (src/demo/live.ts, run here so that each block's commit
 * time is known), and beside it the JSON-RPC relay's polling pattern against the reference.
 *
 *   DATABASE_URL of the service's database (a seeded demo network, see docs/performance.md):
 *   npm run bench -- live --service http://127.0.0.1:5593 --database-url postgres://.../live_bench \
 *     --pid <server pid> --subscribers 100,1000,10000 --duration 60 \
 *     [--reference http://127.0.0.1:5552 --reference-database-url postgres://.../mirror_node --poll-filters 100]
 *
 * Per level: delivery latency from the block's commit to the client (p50, p99, max), events/s, the
 * server's CPU and RSS, and the database's transactions per second (pg_stat_database: one per
 * statement outside a transaction). Subscribers are raw sockets (a minimal SSE reader), so that ten
 * thousand fit in the load generator.
 */
import { connect, type Socket } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.ts';
import { createPostgresDb } from '../../src/db/postgres.ts';
import { writeBlock } from '../../src/demo/live.ts';
import { ID, TOPIC } from '../../src/demo/network.ts';
import type { Fail } from '../lib/cli.ts';
import { clockTicks, sampleTree } from '../lib/proc.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { DATABASE_URL, DURATION, withDefault } from '../lib/options.ts';

const USAGE = `  --service URL        this service on a seeded demo network (required)
  --database-url URL   its database: the live writer adds a block every 2 s there (required)
  --pid N              server process to sample (CPU, RSS)
  --subscribers LIST   subscriber levels, comma separated                      (default 100,1000,10000)
  --duration S         seconds per level                                                 (default 60)
  --reference URL      the reference, polled as the JSON-RPC relay polls (with the next two)
  --reference-database-url URL  the reference's database
  --poll-filters N     relay filters polling the reference                              (default 100)`;

const OPTIONS = {
  service: { type: 'string' },
  ...DATABASE_URL,
  pid: { type: 'string' },
  subscribers: { type: 'string', default: '100,1000,10000' },
  ...withDefault(DURATION, '60'),
  reference: { type: 'string' },
  'reference-database-url': { type: 'string' },
  'poll-filters': { type: 'string', default: '100' },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  if (!values.service || !values['database-url']) fail('--service and --database-url are required');
  const service = new URL(values.service!);
  const durationS = Number(values.duration);
  const pid = values.pid ? Number(values.pid) : undefined;

  /** The filter mix: what explorers, wallets and the relay subscribe to. */
  const MIX: Array<[number, string]> = [
    [40, '/api/v1/contracts/results/logs'],
    [25, `/api/v1/contracts/results/logs?topic0=0x${TOPIC.Transfer}`],
    [15, `/api/v1/contracts/0.0.${ID.pair}/results/logs`],
    [10, `/api/v1/contracts/0.0.${ID.token}/results/logs?topic0=0x${TOPIC.Approval}`],
    [10, `/api/v1/contracts/results/logs?topic0=0x${TOPIC.Swap}&topic2=0x${'0'.repeat(24)}${(ID.userBase + 7).toString(16).padStart(40, '0')}`],
  ];
  const pathFor = (i: number) => {
    let r = i % 100;
    for (const [weight, path] of MIX) {
      if (r < weight) return path;
      r -= weight;
    }
    return MIX[0]![1];
  };

  // ----- the writer: a block every 2 s, each one's commit time kept -----
  const config = loadConfig({ DATABASE_URL: values['database-url']! }, '/nonexistent');
  const db = createPostgresDb(config);
  const commits: Array<{ end: bigint; at: number }> = [];
  let writing = true;
  const writer = (async () => {
    while (writing) {
      const started = Date.now();
      const end = BigInt(Date.now()) * 1_000_000n;
      await writeBlock(db, end);
      commits.push({ end, at: performance.now() });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2000 - (Date.now() - started))));
    }
  })();
  /** The commit time of the block holding consensus timestamp `ts`. */
  function committedAt(ts: bigint): number | undefined {
    for (let i = commits.length - 1; i >= 0; i--) {
      if (commits[i]!.end < ts) return commits[i + 1]?.at;
    }
    return commits[0]?.at;
  }

  // ----- subscribers: raw sockets, the `id:` lines counted and timed -----
  interface Subscriber {
    socket: Socket;
    connected: boolean;
    events: number;
  }
  const latencies: number[] = [];
  let measuring = false;

  function subscribe(path: string): Promise<Subscriber> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(service.port), service.hostname);
      const sub: Subscriber = { socket, connected: false, events: 0 };
      let rest = '';
      socket.setEncoding('utf8');
      socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`));
      socket.on('data', (text: string) => {
        if (!sub.connected) {
          sub.connected = true;
          if (!text.startsWith('HTTP/1.1 200')) return reject(new Error(`${path}: ${text.slice(0, 200)}`));
          resolve(sub);
        }
        const now = performance.now();
        rest += text;
        let at: number;
        while ((at = rest.indexOf('\nid: ')) >= 0) {
          const end = rest.indexOf('-', at);
          if (end < 0) break;
          const ts = BigInt(rest.slice(at + 5, end));
          rest = rest.slice(end);
          sub.events++;
          if (measuring) {
            const committed = committedAt(ts);
            if (committed !== undefined) latencies.push(now - committed);
          }
        }
        if (rest.length > 4096) rest = rest.slice(-256);
      });
      socket.on('error', reject);
    });
  }

  async function transactions(url: string): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ n: string }>('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()');
    await client.end();
    return Number(rows[0]!.n);
  }

  const q = (xs: number[], p: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!);

  await new Promise((resolve) => setTimeout(resolve, 4500)); // two blocks first
  for (const level of values.subscribers!.split(',').map(Number)) {
    const subs: Subscriber[] = [];
    for (let i = 0; i < level; i += 200) {
      subs.push(...(await Promise.all(Array.from({ length: Math.min(200, level - i) }, (_, k) => subscribe(pathFor(i + k))))));
    }
    await new Promise((resolve) => setTimeout(resolve, 2500));
    latencies.length = 0;
    const events0 = subs.reduce((n, s) => n + s.events, 0);
    const tx0 = await transactions(values['database-url']!);
    const cpu0 = pid ? sampleTree(pid) : undefined;
    const own0 = process.cpuUsage();
    const rss: number[] = [];
    const sampler = pid ? setInterval(() => rss.push((sampleTree(pid)?.rssKb ?? 0) / 1024), 1000) : undefined;
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, durationS * 1000));
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    if (sampler) clearInterval(sampler);
    const cpu1 = pid ? sampleTree(pid) : undefined;
    const own = process.cpuUsage(own0);
    const clientCpu = `${(((own.user + own.system) / 1e6 / seconds) * 100).toFixed(0)} % of a core`;
    const tx1 = await transactions(values['database-url']!);
    const events = subs.reduce((n, s) => n + s.events, 0) - events0;
    const cpu = cpu0 && cpu1 ? `${(((cpu1.ticks - cpu0.ticks) / clockTicks() / seconds) * 100).toFixed(0)} % of a core` : '-';
    process.stdout.write(
      `${level} subscribers, ${seconds.toFixed(0)} s: ${events} events (${(events / seconds).toFixed(0)}/s); delivery after commit p50 ${q(latencies, 0.5).toFixed(0)} ms, ` +
        `p99 ${q(latencies, 0.99).toFixed(0)} ms, max ${latencies.reduce((a, b) => Math.max(a, b), 0).toFixed(0)} ms; server CPU ${cpu} (this load generator ${clientCpu}), RSS ${rss.length ? `${Math.min(...rss).toFixed(0)}-${Math.max(...rss).toFixed(0)} MB` : '-'}; ` +
        `database ${((tx1 - tx0) / seconds).toFixed(1)} transactions/s\n`,
    );
    for (const s of subs) s.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }

  // ----- the relay's polling pattern against the reference: every 500 ms per filter, the newest block, then the logs since the last poll -----
  if (values.reference && values['reference-database-url']) {
    const filters = Number(values['poll-filters']);
    const ref = values.reference;
    let requests = 0;
    const times: number[] = [];
    const tx0 = await transactions(values['reference-database-url']);
    const started = performance.now();
    const get = async (path: string): Promise<unknown> => {
      const t = performance.now();
      const res = await fetch(ref + path);
      const body = (await res.json()) as unknown;
      requests++;
      times.push(performance.now() - t);
      return body;
    };
    const newest = async () => ((await get('/api/v1/blocks?limit=1&order=desc')) as { blocks: Array<{ timestamp: { to: string } }> }).blocks[0]!.timestamp.to;
    const pollers = Array.from({ length: filters }, async (_, i) => {
      let from = await newest();
      while (performance.now() - started < durationS * 1000) {
        const to = await newest();
        const path = pathFor(i);
        await get(`${path}${path.includes('?') ? '&' : '?'}timestamp=gte:${from}&timestamp=lte:${to}&order=asc&limit=100`);
        from = to;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });
    await Promise.all(pollers);
    const seconds = (performance.now() - started) / 1000;
    const tx1 = await transactions(values['reference-database-url']);
    process.stdout.write(
      `the relay's polling of ${filters} filters against the reference, ${seconds.toFixed(0)} s: ${(requests / seconds).toFixed(0)} requests/s, ` +
        `p50 ${q(times, 0.5).toFixed(0)} ms, p99 ${q(times, 0.99).toFixed(0)} ms; its database ${((tx1 - tx0) / seconds).toFixed(1)} transactions/s\n`,
    );
  }

  writing = false;
  await writer;
  await db.close();
  process.exit(0);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
