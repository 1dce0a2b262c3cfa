/**
 * The cost of a shed request (issue 31), in microseconds of the event loop: the service's app runs
 * in this process on a loopback port with a database whose pool always reports a queue, so that
 * every contract request is shed before routing; a worker thread sends keep-alive GETs over
 * --connections connections for --seconds, retrying at once. The main thread's event-loop
 * utilisation (performance.eventLoopUtilization, this thread's alone) over the run, divided by the
 * answers, is the cost per shed request: Node's HTTP parse and its request and response objects
 * included. For comparison the same load on the same app with shedding off: each request is
 * routed by Fastify and answered 400 by the route's parameter check (the cheapest answer a contract
 * route gives, no database), an unknown path answered 404 by Fastify, and node:http alone writing
 * the same 503 bytes (the floor: what Node's HTTP server costs per request before any code of ours).
 *
 *   npm run bench -- shed-cost [--seconds 5] [--connections 32]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { routes } from '../../src/app.ts';
import { loadConfig } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import { buildApp } from '../../src/http/server/server.ts';
import { shedAnswer } from '../../src/http/server/load/admission.ts';
import { type OptionsConfig, type ScenarioArgs, defineScenario } from '../lib/scenario.ts';
import { CONNECTIONS, SECONDS, withDefault } from '../lib/options.ts';

/** The load: plain JavaScript for the worker (no loader needed there). */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const net = require('node:net');
const { port, path, connections, seconds } = workerData;
const request = Buffer.from('GET ' + path + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n');
let answers = 0;
const statuses = {};
const end = Date.now() + seconds * 1000;
let open = connections;
for (let i = 0; i < connections; i++) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = Buffer.alloc(0);
  socket.on('connect', () => socket.write(request));
  socket.on('data', (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    for (;;) {
      const head = buffer.indexOf('\\r\\n\\r\\n');
      if (head < 0) return;
      const text = buffer.toString('latin1', 0, head);
      const length = Number(/content-length: (\\d+)/i.exec(text)[1]);
      if (buffer.length < head + 4 + length) return;
      buffer = buffer.subarray(head + 4 + length);
      answers++;
      const status = text.slice(9, 12);
      statuses[status] = (statuses[status] || 0) + 1;
      if (Date.now() >= end) { socket.destroy(); if (--open === 0) parentPort.postMessage({ answers, statuses }); return; }
      socket.write(request);
    }
  });
}
`;

const USAGE = `  --seconds S          seconds of load per measurement                                    (default 5)
  --connections C      keep-alive connections of the load                                (default 32)`;

const OPTIONS = {
  ...withDefault(SECONDS, '5'),
  ...withDefault(CONNECTIONS, '32'),
} satisfies OptionsConfig;

async function main(args: ScenarioArgs<typeof OPTIONS>): Promise<void> {
  const { values } = args;
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);

  function stubDb(waiting: number): Db {
    const db: Db = {
      kind: 'embedded',
      query: async () => [],
      exec: async () => {},
      session: (work) => work(db),
      close: async () => {},
      poolStats: () => ({ total: 10, idle: 0, waiting }),
      observe: () => {},
    };
    return db;
  }

  /** A server listening on a loopback port, and how to close it. */
  interface Listening {
    port: number;
    close(): Promise<unknown>;
  }

  async function service(env: Record<string, string>, waiting: number): Promise<Listening> {
    const config = loadConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_MAXEVENTLOOPDELAY: '0', HIERO_MIRROR_REST_SERVER_PRESSURE_MAXSHEDDELAY: '0', ...env }, '/nonexistent');
    const app = buildApp({ config, db: stubDb(waiting), routes });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
  }

  /** node:http alone writing the same 503 bytes (the service's own shed answer): the floor any answer over Node's HTTP server costs. */
  async function bare(): Promise<Listening> {
    const { status, body, headers } = shedAnswer(loadConfig({}, '/nonexistent').response.compression);
    const server = createServer((_request, response) => {
      response.writeHead(status, headers);
      response.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  async function measure(what: string, start: () => Promise<Listening>, path: string): Promise<void> {
    const app = await start();
    const { port } = app;
    const run = (secs: number) =>
      new Promise<{ answers: number; statuses: Record<string, number> }>((resolve, reject) => {
        const worker = new Worker(WORKER, { eval: true, workerData: { port, path, connections, seconds: secs } });
        worker.once('message', (m) => {
          void worker.terminate();
          resolve(m);
        });
        worker.once('error', reject);
      });
    await run(1); // warm-up
    const before = performance.eventLoopUtilization();
    const { answers, statuses } = await run(seconds);
    const elu = performance.eventLoopUtilization(before);
    await app.close();
    const perAnswer = (elu.active * 1000) / answers;
    process.stdout.write(
      `${what.padEnd(58)} ${String(Math.round(answers / seconds)).padStart(7)}/s  ${perAnswer.toFixed(1).padStart(6)} µs of event loop each ` +
        `(utilisation ${(elu.utilization * 100).toFixed(0)} %; ${JSON.stringify(statuses)})\n`,
    );
  }

  process.stdout.write(`${connections} connections retrying at once, ${seconds} s each, Node ${process.version}\n`);
  const shedding = { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXPOOLWAITING: '1' };
  const routed = { HIERO_MIRROR_REST_SERVER_PRESSURE_MAXPOOLWAITING: '0' };
  await measure('node:http alone, the same 503 bytes (the floor)', bare, '/api/v1/contracts/0.0.1001/results?limit=2');
  await measure('shed before routing (pool queue full)', () => service(shedding, 1), '/api/v1/contracts/0.0.1001/results?limit=2');
  await measure('routed, answered 400 by the route (no database)', () => service(routed, 0), '/api/v1/contracts/0.0.1001/results?limit=x');
  await measure('routed, unknown path answered 404 by Fastify', () => service(routed, 0), '/api/v1/nothing');
}

export default defineScenario({ usage: USAGE, options: OPTIONS, run: main });
