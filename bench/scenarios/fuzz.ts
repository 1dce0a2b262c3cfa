/**
 * Fuzzing over HTTP (issue 16): hostile and broken requests over all ten routes against a running
 * build of the service, counted by status.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> npm run bench -- fuzz --count 100000 [--connections 16] [--seed 1] [--upstream]
 *
 * Samples valid URLs of the ten routes from DATABASE_URL (bench/lib/workload.ts, read only), starts
 * the service on that database (dist/cli.js, built first) unless --base is given, and sends --count
 * requests made from them by bench/lib/fuzzInput.ts (seeded: the same seed, the same requests) over
 * raw keep-alive connections. It prints the answers by route and status, every 5xx request, and
 * ends with PASS or FAIL (exit code 0 or 1): PASS when no answer is a 5xx other than the documented
 * 503 `Service unavailable` (database unavailable, shutdown, shedding) and every request got an
 * answer. With --upstream the service runs with upstream.url set to a loopback server of this script
 * (every path not served here is passed on to it and answered 200).
 *
 * Beside them, --slow readers (bench/lib/slowReader.ts, issue 44) send requests with big answers
 * (whole listings as NDJSON, event streams, pages; some fuzzed ones) each on a connection of its own,
 * read the answer a few bytes per interval or not at all after the first read, and disconnect midway
 * (50 ms to 3 s after sending); what they saw is printed, and the check above must hold meanwhile:
 * slow readers must not keep the server from answering everyone else.
 *
 * And one client's JSON-RPC attacks (issue 58; bench/lib/fuzzInput.ts, rpcRequests) spread among the
 * fuzzed requests on the same connections: `[]`, `42`, a numeric method and other broken envelopes,
 * an eth_getLogs with 21,500 addresses (about 980 KB) and one over rpc.maxBodyBytes, five topics,
 * batches at and over rpc.maxBatchSize (of eth_getLogs, eth_newFilter, nested), deep nesting, then
 * --rpc-filters eth_newFilter calls (10,000 from one address). Judged as the others: an answer to
 * each, no 5xx but the documented 503 (on /rpc any 503 with Retry-After), whatever the codes of the
 * /rpc limits are.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { type Fail, MIRROR_503, numberOptions } from '../lib/cli.ts';
import { type FuzzRequest, fuzzRequests, interleave, isolated, rpcRequests, serialize, slowReads } from '../lib/fuzzInput.ts';
import { RawClient } from '../lib/rawClient.ts';
import { type SlowSummary, describeSlow, runSlowReaders } from '../lib/slowReader.ts';
import { type StartedServer, buildService, localService, startLocalService } from '../lib/server.ts';
import { ENDPOINTS, type Endpoint, classify } from '../lib/urls.ts';
import { buildWorkload, sampleDatabase, seededRandom } from '../lib/workload.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, PORT } from '../lib/options.ts';

const USAGE = `  --count N          requests to send                                              (default 100000)
  --connections C    concurrent keep-alive connections                                 (default 16)
  --seed N           seed of the URLs and the requests                                  (default 1)
  --port P           loopback port of the server it starts                           (default 5612)
  --base URL         fuzz a server that is already running instead (on DATABASE_URL's data)
  --upstream         serve with upstream.url: a loopback server of this script's that answers
                     200 to every request passed on to it (the paths not served here)
  --timeout MS       time to wait for an answer                                      (default 30000)
  --slow N           slow readers beside the connections (a few bytes per interval or nothing
                     after the first read, disconnecting midway); 0: none                (default 4)
  --rpc-filters N    eth_newFilter calls among the JSON-RPC attacks on POST /rpc        (default 10000)
  --no-rpc           no JSON-RPC attacks (issue 58): the fuzzed requests only`;

const show = (r: FuzzRequest) => `${JSON.stringify(r.method)} ${JSON.stringify(r.target.length > 300 ? `${r.target.slice(0, 300)}...` : r.target)}` +
  ` headers ${JSON.stringify(r.headers.map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 60)}...` : v}`))}`;

/** The route a target names (by its path), `rpc` for the JSON-RPC endpoint, or `other` for paths outside /api/v1/contracts. */
function routeOf(target: string): Endpoint | 'rpc' | 'other' {
  const path = target.replace(/^https?:\/\/[^/]*/, '');
  if (path === '/rpc') return 'rpc';
  return /^\/api\/v1\/contracts(\/|\?|$)/.test(path) ? classify(path) : 'other';
}

const OPTIONS = {
  count: { type: 'string' },
  ...CONNECTIONS,
  seed: { type: 'string' },
  ...PORT,
  base: { type: 'string' },
  timeout: { type: 'string' },
  slow: { type: 'string' },
  upstream: { type: 'boolean', default: false },
  'rpc-filters': { type: 'string' },
  'no-rpc': { type: 'boolean', default: false },
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const fail: Fail = args.fail;
  const { positiveInteger, integerAtLeast } = numberOptions(fail);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) fail('DATABASE_URL must name the database to sample URLs from (and to serve)');
  const count = positiveInteger('count', values.count, 100_000);
  const connections = positiveInteger('connections', values.connections, 16);
  const seed = positiveInteger('seed', values.seed, 1);
  const timeout = positiveInteger('timeout', values.timeout, 30_000);
  const slowReaders = integerAtLeast('slow', values.slow, 4, 0);
  const rpcFilters = values['no-rpc'] ? -1 : integerAtLeast('rpc-filters', values['rpc-filters'], 10_000, 0);

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let urls: string[];
  try {
    await client.query('set default_transaction_read_only = on');
    urls = buildWorkload(await sampleDatabase(client, 200, (seed % 1000) / 1000), 2000, seededRandom(seed)).urls;
  } finally {
    await client.end();
  }
  const routes = new Set(urls.map(classify));
  process.stdout.write(`fuzz: ${count} requests from ${urls.length} sampled URLs over ${routes.size} routes, ${connections} connections, ${slowReaders} slow readers, seed ${seed}\n`);
  if (routes.size < ENDPOINTS.length) process.stderr.write(`warning: the database gave URLs of ${routes.size} routes only\n`);

  let server: StartedServer | undefined;
  let base = values.base;
  // with --upstream: the paths not served here go to a loopback mirror node that answers every request 200
  const upstream = values.upstream
    ? createServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"upstream":true}'));
      })
    : undefined;
  let passedOn = 0;
  if (upstream) {
    if (base !== undefined) fail('--upstream starts the server itself: not with --base');
    upstream.on('request', () => passedOn++);
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    process.env.UPSTREAM_URL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  }
  if (base === undefined) {
    if (!buildService()) fail('npm run build failed');
    const service = localService('fuzz', positiveInteger('port', values.port, 5612));
    base = service.base;
    server = await startLocalService(service);
    process.stderr.write(`server log: ${service.logFile}\n`);
  }
  const { hostname, port } = new URL(base);

  const statuses = new Map<string, Map<number, number>>();
  const errors = new Map<string, number>();
  const serverErrors: string[] = [];
  const unanswered: string[] = [];
  let documented503 = 0;
  let sent = 0;
  const started = performance.now();
  const host = `${hostname}:${port}`;
  // the JSON-RPC attacks spread evenly among the fuzzed requests
  const rpcCount = rpcFilters < 0 ? 0 : [...rpcRequests(host, 0)].length + rpcFilters + 2 * Math.floor(rpcFilters / 100);
  const requests = rpcFilters < 0
    ? fuzzRequests(urls, host, seed, count)
    : interleave(fuzzRequests(urls, host, seed, count), rpcRequests(host, rpcFilters), Math.max(1, Math.floor(count / Math.max(1, rpcCount))));
  if (rpcCount) process.stdout.write(`and ${rpcCount} JSON-RPC attacks on POST /rpc among them (${rpcFilters} eth_newFilter)\n`);
  const worker = async () => {
    const raw = new RawClient(Number(port), hostname);
    for (let next = requests.next(); !next.done; next = requests.next()) {
      const request = next.value;
      const outcome = await raw.send(serialize(request), request.method === 'HEAD', timeout);
      if (isolated(request)) raw.close();
      if (++sent % 10_000 === 0) process.stderr.write(`${sent} sent, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
      if ('error' in outcome) {
        errors.set(outcome.error.replace(/\d+/g, 'N'), (errors.get(outcome.error.replace(/\d+/g, 'N')) ?? 0) + 1);
        if (unanswered.length < 30) unanswered.push(`${outcome.error}: ${show(request)}`);
        continue;
      }
      const { status, body } = outcome.answer;
      const route = routeOf(request.target);
      const byStatus = statuses.get(route) ?? new Map<number, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      statuses.set(route, byStatus);
      // (on /rpc the body of a 503 is the JSON-RPC endpoint's to choose: its Retry-After is what is documented)
      if (status === 503 && outcome.answer.headers['retry-after'] && (request.method === 'HEAD' || route === 'rpc' || body.toString() === MIRROR_503)) documented503++;
      else if (status >= 500) serverErrors.push(`${status} ${show(request)} -> ${body.toString('utf8').slice(0, 200)}`);
    }
    raw.close();
  };
  let slow: SlowSummary | undefined;
  try {
    const working = Promise.all(Array.from({ length: connections }, worker));
    const reading = runSlowReaders(Number(port), hostname, slowReads(urls, `${hostname}:${port}`, seed), slowReaders, working);
    await working;
    slow = await reading;
  } finally {
    if (server) process.stderr.write(`server: ${await server.stop()}\n`);
    upstream?.closeAllConnections();
    upstream?.close();
  }
  const seconds = (performance.now() - started) / 1000;

  const codes = [...new Set([...statuses.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  process.stdout.write(`\n${'route'.padEnd(14)}${codes.map((c) => String(c).padStart(8)).join('')}\n`);
  for (const route of [...ENDPOINTS, 'rpc', 'other'] as const) {
    const m = statuses.get(route);
    if (m) process.stdout.write(`${route.padEnd(14)}${codes.map((c) => String(m.get(c) ?? 0).padStart(8)).join('')}\n`);
  }
  const total = [...statuses.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);
  const unansweredCount = [...errors.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(
    `\n${sent} requests in ${seconds.toFixed(0)} s (${Math.round(sent / seconds)}/s); ${total} answered; ` +
      `documented 503: ${documented503}; other 5xx: ${serverErrors.length}; no answer: ${unansweredCount}` +
      `${upstream ? `; passed on to the upstream: ${passedOn}` : ''}\n`,
  );
  if (slow) process.stdout.write(`beside them: ${describeSlow(slow)}\n`);
  for (const [error, n] of errors) process.stdout.write(`  no answer, ${n}x: ${error}\n`);
  for (const line of unanswered.slice(0, 10)) process.stdout.write(`  e.g. ${line}\n`);
  for (const line of serverErrors) process.stdout.write(`  5xx: ${line}\n`);
  const ok = serverErrors.length === 0 && unansweredCount === 0;
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}\n`);
  process.exitCode = ok ? 0 : 1;
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
