/**
 * Every bench scenario: its name on the command line (`npm run bench -- <name>`), one line of what
 * it measures or does, and its module (bench/scenarios/<name>.ts), loaded only when it runs.
 * bench/README.md describes each and names the doc section that cites its figures.
 */
import type { ScenarioEntry } from '../lib/scenario.ts';

export const SCENARIOS: readonly ScenarioEntry[] = [
  // load and latency
  { name: 'run', summary: 'throughput and latency of a URL list at fixed connections: requests/s, p50-p99 per endpoint, server CPU and RSS, cache hits', load: async () => (await import('./run.ts')).default },
  { name: 'compare', summary: 'two `run --json` reports side by side: requests/s and p99 per level, p50 and p99 of every URL', load: async () => (await import('./compare.ts')).default },
  { name: 'versus', summary: 'per-URL latency against the reference, one request at a time: every URL where this service is slower', load: async () => (await import('./versus.ts')).default },
  { name: 'live', summary: 'live logs under load: delivery latency from a block\'s commit to N subscribers, events/s, CPU, database transactions', load: async () => (await import('./live.ts')).default },
  { name: 'ndjson-stream', summary: 'NDJSON throughput and memory: every log and every result of the database in one answer each', load: async () => (await import('./ndjsonStream.ts')).default },
  { name: 'additions', summary: 'what the additions save a client against the reference\'s request chains: eth_getLogs over 5 addresses, 20,000 logs as NDJSON', load: async () => (await import('./additions.ts')).default },
  // reliability
  { name: 'soak', summary: 'steady load for minutes: errors and RSS growth per window, PASS or FAIL', load: async () => (await import('./soak.ts')).default },
  { name: 'overload', summary: 'more connections than the service serves, retrying at once or after Retry-After: goodput, p99, RSS, PASS or FAIL', load: async () => (await import('./overload.ts')).default },
  { name: 'shed-cost', summary: 'event-loop microseconds per shed request, beside a 400, a 404 and bare node:http', load: async () => (await import('./shedCost.ts')).default },
  { name: 'hostile', summary: 'clients that ask for streamed answers and never read: the mix\'s throughput, p99 and the server\'s RSS alone and under attack', load: async () => (await import('./hostile.ts')).default },
  { name: 'stream-start', summary: 'liveness and a contract route, each over a new connection, while never-reading stream clients start: p50, p99, max', load: async () => (await import('./streamStart.ts')).default },
  { name: 'fuzz', summary: 'hostile and broken requests over all ten routes, beside slow readers: no 5xx but the documented 503, PASS or FAIL', load: async () => (await import('./fuzz.ts')).default },
  { name: 'faults', summary: 'database faults under load (terminate, cut, reset, restart): every request answered, recovery, PASS or FAIL', load: async () => (await import('./faults.ts')).default },
  { name: 'shutdown', summary: 'SIGTERM under load: every request in flight answered, exit 0 within the grace, PASS or FAIL', load: async () => (await import('./shutdown.ts')).default },
  // database work
  { name: 'citus-work', summary: 'database work per request on Citus beside the reference: statements, shard tasks, worker connections, PostgreSQL CPU', load: async () => (await import('./citusWork.ts')).default },
  { name: 'explain', summary: 'EXPLAIN (ANALYZE, BUFFERS) of every statement the service sends for each request path', load: async () => (await import('./explain.ts')).default },
  { name: 'plan-sweep', summary: 'every route and filter shape timed with a generic, a custom and the service\'s plan: the statements whose plan is slow', load: async () => (await import('./planSweep.ts')).default },
  // JSON-RPC (/rpc) against the relay: the pieces in bench/rpc
  { name: 'rpc-difftest', summary: 'random JSON-RPC calls of every eth_getLogs and filter shape to two endpoints (the relay, /rpc), the answers compared', load: async () => (await import('../rpc/difftest.ts')).default },
  { name: 'rpc-load', summary: 'eth_getLogs through the relay against /rpc at fixed connections: requests/s, p50, p99; ranges the relay cannot answer; subscriptions', load: async () => (await import('../rpc/load.ts')).default },
  // inputs and reports
  { name: 'gen-workload', summary: 'writes a relay-shaped URL list (by popularity rank) and its hot set from a database, for `run --mix zipf`', load: async () => (await import('./genWorkload.ts')).default },
  { name: 'translate-urls', summary: 'rewrites a URL list for a database of another scale, contracts and accounts matched by popularity rank', load: async () => (await import('./translateUrls.ts')).default },
  { name: 'profile-summary', summary: 'summarises a V8 .cpuprofile: self time by area, top functions, the project\'s functions by inclusive time', load: async () => (await import('./profileSummary.ts')).default },
];

export function findScenario(name: string): ScenarioEntry | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
