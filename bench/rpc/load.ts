/**
 * eth_getLogs figures, side by side in one run: endpoint A (the relay in front of the reference) and
 * B (this service's /rpc) answer the same calls (bench/rpc/loadCalls.ts) at a fixed number of
 * connections, a warm-up and then the measured seconds, scenario by scenario, A first. Before each
 * scenario three of its calls go to both sides and their answers are checked (a list of logs, the same
 * on both). Each side starts once the machine is quiet: the calls a run leaves in flight go on. With --probe, the ranges the relay cannot answer in 30 s (bench/rpc/probe.ts); with
 * --subscriptions, eth_subscribe over WebSockets and the database's statements per second
 * (bench/rpc/subscribe.ts). See bench/rpc/README.md.
 */
import { writeFileSync } from 'node:fs';
import { loopbackUrl, numberOptions } from '../lib/cli.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { cannon, type CannonResult } from './cannon.ts';
import { post } from './jsonRpc.ts';
import { addressTopics, SCENARIOS, type Scenario, scenarioCall } from './loadCalls.ts';
import { probeRanges } from './probe.ts';
import { clockTicks, sampleHostCpu, sampleTree } from '../lib/proc.ts';
import { samplePool } from './sample.ts';
import { subscriptionLoad } from './subscribe.ts';
import { CONNECTIONS, DURATION, WARMUP } from '../lib/options.ts';

const USAGE = `  --a URL              endpoint A (the relay, e.g. http://127.0.0.1:7546)
  --b URL              endpoint B (this service, e.g. http://127.0.0.1:5642/rpc)
  --psql CMD           psql command line for the mirror node database
  --connections C      default 16
  --duration S         measured seconds per scenario and side (default 20)
  --warmup S           warm-up seconds before each (default 5)
  --only LIST          scenarios by number 1-${SCENARIOS.length} ('' for none): ${SCENARIOS.map((s, i) => `${i + 1} ${s.name}`).join('; ')}
  --probe              also probe the ranges of one dense address the relay cannot answer within 30 s
  --subscriptions N    also open N eth_subscribe logs subscriptions on B's WebSocket (--ws) and count statements
  --ws URL             B's WebSocket (default: B with ws://)
  --sockets K          WebSockets the subscriptions share (default 50)
  --json FILE          every figure as JSON
  --seed S             sampling seed (default 1)
  --pid-a N, --pid-b N the side's server process: its CPU (with its workers) and every PostgreSQL process's, in ms a
                       call of the measured seconds (/proc; steadier than requests/s on a shared machine)`;

const OPTIONS = {
  a: { type: 'string' }, b: { type: 'string' }, psql: { type: 'string' }, ...CONNECTIONS, ...DURATION,
  ...WARMUP, only: { type: 'string' }, probe: { type: 'boolean' }, subscriptions: { type: 'string' }, ws: { type: 'string' },
  sockets: { type: 'string' }, json: { type: 'string' }, seed: { type: 'string' }, 'pid-a': { type: 'string' }, 'pid-b': { type: 'string' },
} satisfies OptionsConfig;

function options({ values, fail }: ScenarioArgs<typeof OPTIONS>) {
  if (!values.a || !values.b || !values.psql) return fail('--a, --b and --psql are required');
  const num = numberOptions(fail);
  const b = loopbackUrl(fail, 'b', values.b, 'http');
  const only = values.only?.split(',').filter((s) => s !== '').map((s) => num.positiveInteger('only', s, 1) - 1);
  return {
    a: loopbackUrl(fail, 'a', values.a, 'http').href,
    b: b.href,
    psql: values.psql,
    connections: num.positiveInteger('connections', values.connections, 16),
    duration: num.positiveInteger('duration', values.duration, 20),
    warmup: num.integerAtLeast('warmup', values.warmup, 5, 0),
    scenarios: only ? only.map((i) => SCENARIOS[i] ?? fail(`--only: no scenario ${i + 1}`)) : SCENARIOS,
    probe: values.probe === true,
    subscriptions: num.integerAtLeast('subscriptions', values.subscriptions, 0, 0),
    ws: values.ws ? loopbackUrl(fail, 'ws', values.ws, 'ws').href : b.href.replace(/^http/, 'ws'),
    sockets: num.positiveInteger('sockets', values.sockets, 50),
    json: values.json,
    seed: num.integerAtLeast('seed', values.seed, 1, 0),
    pidA: values['pid-a'] === undefined ? undefined : num.positiveInteger('pid-a', values['pid-a'], 1),
    pidB: values['pid-b'] === undefined ? undefined : num.positiveInteger('pid-b', values['pid-b'], 1),
  };
}

/** Three calls of the scenario to A, then B, alone: the logs, the times, and whether both answer the same. */
async function check(a: string, b: string, calls: unknown[]): Promise<{ logs: number[]; ms: number[][]; same: boolean; problem?: string }> {
  const logs: number[] = [];
  const ms: number[][] = [];
  let same = true;
  for (const body of calls) {
    const ra = await post(a, body, 120_000);
    const rb = await post(b, body, 120_000);
    ms.push([Math.round(ra.ms), Math.round(rb.ms)]);
    const result = (r: typeof ra) => (r.json as { result?: unknown } | undefined)?.result;
    if (!Array.isArray(result(ra)) || !Array.isArray(result(rb))) {
      return { logs, ms, same: false, problem: `A: ${ra.timedOut ? 'timeout' : ra.text.slice(0, 200)} B: ${rb.timedOut ? 'timeout' : rb.text.slice(0, 200)}` };
    }
    logs.push((result(rb) as unknown[]).length);
    same &&= ra.text === rb.text;
  }
  return { logs, ms, same };
}

/**
 * Waits until the machine is quiet (under 25 % of its cores busy over a second), at most 60 s: the
 * relay and the reference go on with the calls a run left in flight (1,000 blocks: up to 20 s each),
 * which would otherwise run during the next side's seconds. The seconds waited.
 */
async function quiet(): Promise<number> {
  const began = performance.now();
  while (performance.now() - began < 60_000) {
    const before = sampleHostCpu();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = sampleHostCpu();
    if (after.total > before.total && (after.busy - before.busy) / (after.total - before.total) < 0.25) break;
  }
  return Math.round((performance.now() - began) / 100) / 10;
}

/** CPU in ms a call of the server's tree and of every PostgreSQL process, over one measured run. */
interface CallCpu {
  serverMs: number;
  postgresMs: number;
}

/** `run` with the CPU that `pid`'s tree and PostgreSQL spent on it, a call (none without a pid). */
async function withCpu(pid: number | undefined, run: () => Promise<CannonResult>): Promise<CannonResult & { cpu?: CallCpu }> {
  const before = pid === undefined ? undefined : sampleTree(pid);
  const result = await run();
  const after = pid === undefined ? undefined : sampleTree(pid);
  if (before === undefined || after === undefined || result.requests === 0) return result;
  const ms = (ticks: number) => Math.round(((ticks * 1000) / clockTicks() / result.requests) * 100) / 100;
  return { ...result, cpu: { serverMs: ms(after.ticks - before.ticks), postgresMs: ms(after.postgresTicks - before.postgresTicks) } };
}

const fmt = (r: CannonResult & { cpu?: CallCpu }) =>
  `${r.rps} | ${r.p50} | ${r.p99} | ${r.max}${r.cpu ? ` (CPU ${r.cpu.serverMs} + ${r.cpu.postgresMs} ms)` : ''}${r.non2xx + r.errors + r.timeouts > 0 ? ` (${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts)` : ''}`;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const o = options(args);
  const pool = samplePool(o.psql, o.seed);
  const pairs = addressTopics(pool);
  const rows: { scenario: Scenario; logs: number[]; ms: number[][]; same: boolean; problem?: string; a: CannonResult & { cpu?: CallCpu }; b: CannonResult & { cpu?: CallCpu } }[] = [];
  console.log(`| calls | logs a call | alone, ms (relay/endpoint) | relay req/s | p50 ms | p99 ms | max ms | endpoint req/s | p50 ms | p99 ms | max ms | ratio |`);
  console.log(`|---|---|---|---|---|---|---|---|---|---|---|---|`);
  for (const scenario of o.scenarios) {
    let k = 0;
    const next = () => scenarioCall(pool, scenario, pairs, k++);
    const checked = await check(o.a, o.b, [next(), next(), next()]);
    const start = k;
    const side = async (url: string, pid: number | undefined) => {
      if (o.warmup > 0) await cannon(url, next, o.connections, o.warmup, 60);
      return withCpu(pid, () => cannon(url, next, o.connections, o.duration, 60));
    };
    await quiet();
    const a = await side(o.a, o.pidA);
    k = start;
    const waited = await quiet();
    if (waited > 1.5) console.error(`${scenario.name}: ${waited} s until the machine was quiet after A`);
    const b = await side(o.b, o.pidB);
    rows.push({ scenario, ...checked, a, b });
    const note = checked.problem ? ` check: ${checked.problem}` : checked.same ? '' : ' (answers differ)';
    const ratio = a.rps > 0 ? `${(b.rps / a.rps).toFixed(1)}x` : 'relay: none within the run';
    console.log(`| ${scenario.name} | ${checked.logs.join('/')} | ${checked.ms.map((m) => m.join('/')).join(', ')} | ${fmt(a)} | ${fmt(b)} | ${ratio} |${note}`);
  }
  const probe = o.probe ? await probeRanges(o.a, o.b, pool, pairs) : undefined;
  const subscriptions = o.subscriptions > 0 ? await subscriptionLoad(o.ws, o.psql, pool, pairs, o.subscriptions, o.sockets) : undefined;
  if (o.json) writeFileSync(o.json, `${JSON.stringify({ date: new Date().toISOString(), options: { ...o, psql: undefined }, rows, probe, subscriptions }, null, 1)}\n`);
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
