import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { createApp } from '../app.ts';
import type { Config } from '../config/config.ts';
import { demoExamples } from '../demo/examples.ts';
import { startLiveWriter } from '../demo/live.ts';
import { drainOf } from '../http/server/plugins/drain.ts';
import { type ManagementListener, listenManagement } from '../http/server/managementListener.ts';
import { isPrimary, runPrimary, workerNumber } from './cluster.ts';
import { fail, signals } from './output.ts';
import { checkPortFree, portMessage } from './startup.ts';
import { type ServedNetwork, prepareNetworks, withEmbeddedNetworks } from './networks.ts';
import { type Served, prepareEmbedded, prepareExternal, migrateExternal } from './prepare.ts';

/** How long after the grace a shutdown that still has not ended exits anyway (code 1). */
const SHUTDOWN_BACKSTOP_MS = 5000;
/** Log lines are written out once this many bytes have gathered... */
const LOG_BUFFER_BYTES = 4096;
/** ...or every this many ms. */
const LOG_FLUSH_MS = 250;
/** A live demo network's block time (--live). */
const LIVE_BLOCK_MS = 2000;
/** How long closing the database pool may take during a shutdown. */
const DATABASE_CLOSE_MS = 3000;

export interface ServeFlags {
  host: string;
  dataDir: string;
  /** DATA_TEMPLATE: a packed demo database a first start copies (src/cli/template.ts). */
  template?: string | undefined;
  memory: boolean;
  migrate: boolean;
  workers: number;
  /** Keep extending the embedded demo network with a new block every 2 s (src/demo/live.ts). */
  live: boolean;
  /** `--networks a,b`: each network an embedded database of its own (networks.ts). */
  networks: string[];
}

function banner(base: string, served: Served, workers: number, live: boolean, networks: ServedNetwork[], managementPort?: number): string {
  const lines = [`contract-query-service listening on ${base}`];
  if (networks.length === 0) lines.push(`  database: ${served.line}`);
  for (const network of networks) lines.push(`  network ${network.name}: ${network.served.line}`);
  if (networks.length > 0) {
    lines.push(`  the Host picks the network (${networks[0]!.name} for hosts that name none), e.g.:`);
    for (const network of networks) lines.push(`    curl -H 'Host: ${network.name}.localhost' ${base}/api/v1/contracts/results?limit=1`);
  }
  if (live) {
    lines.push(
      '  live: a new block every 2 s, stamped now; watch its logs arrive:',
      `    curl -N -H 'Accept: text/event-stream' ${base}/api/v1/contracts/results/logs`,
    );
  }
  if (workers > 1) lines.push(`  workers: ${workers} processes`);
  if (managementPort !== undefined) lines.push(`  health probes and metrics also on port ${managementPort} (/health/liveness, /health/readiness, /metrics)`);
  const examples = served.demo ? demoExamples(served.demo.facts) : [];
  if (examples.length) {
    lines.push('  try:');
    for (const example of examples) lines.push(`    ${example.title}`, `      ${base}${example.path}`);
  }
  lines.push('  stop with Ctrl-C');
  return `${lines.join('\n')}\n`;
}

/**
 * `serve`: the HTTP API on the embedded database (default) or on the configured PostgreSQL, in one
 * process or, with --workers N (PostgreSQL only), in N processes sharing the port.
 */
export async function runServe(loaded: Config, flags: ServeFlags): Promise<void> {
  let config = loaded;
  // Asynchronous, buffered writes: lines go out together once 4 KiB have gathered, and at the latest
  // a quarter of a second after they were logged, instead of a write(2) per request line; pino
  // flushes what is left when the process exits.
  const logger = pino({ level: config.log.level }, pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS }));
  if (flags.live && (config.externalDatabase || flags.networks.length > 0 || config.networks)) {
    fail('--live extends the embedded demo network; to write live blocks into PostgreSQL use: seed --live --database-url URL', 2);
  }
  if (flags.workers > 1 && !config.externalDatabase) {
    fail('--workers needs PostgreSQL (DATABASE_URL): the embedded database lives inside one process', 2);
  }
  if (isPrimary()) {
    try {
      await checkPortFree(config.port, flags.host);
    } catch (err) {
      fail((err as Error).message);
    }
    if (config.externalDatabase && flags.migrate && !config.networks) await migrateExternal(config, logger);
    if (flags.workers > 1) return runPrimary(flags.workers, logger);
  }
  signals.install({ repeatExits: isPrimary() });
  if (flags.networks.length > 0) config = withEmbeddedNetworks(config, flags.networks);
  const networks = config.networks ? await prepareNetworks(config, flags, logger) : [];
  const served =
    networks.length > 0
      ? { ...networks[0]!.served, close: async () => void (await Promise.all(networks.map((n) => n.served.close()))) }
      : config.externalDatabase
        ? await prepareExternal(config, logger)
        : await prepareEmbedded(flags, logger);

  const sources = networks.map((n) => ({ name: n.name, config: n.config, db: n.served.db }));
  const app = createApp(config, served.db, logger, undefined, { networks: sources, defaultNetwork: config.networks?.defaultNetwork });
  try {
    await app.listen({ port: config.port, host: flags.host, backlog: config.server.listenBacklog, listenTextResolver: (address) => `listening on ${address}` });
  } catch (err) {
    await served.close();
    fail(portMessage(err as NodeJS.ErrnoException, config.port, flags.host));
  }
  const port = (app.server.address() as AddressInfo).port;
  let management: ManagementListener | undefined;
  if (config.server.managementPort > 0) {
    try {
      management = await listenManagement(app, {
        port: config.server.managementPort,
        host: flags.host,
        backlog: config.server.listenBacklog,
        headersTimeoutMs: config.server.headersTimeoutMs,
        vary: config.response.compression,
      });
    } catch (err) {
      await app.close();
      await served.close();
      fail(portMessage(err as NodeJS.ErrnoException, config.server.managementPort, flags.host));
    }
  }
  // the start-up's log lines come before the banner, not up to LOG_FLUSH_MS after it
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  if (workerNumber() === 1) process.stdout.write(banner(`http://localhost:${port}`, served, flags.workers, flags.live, networks, management?.port));
  const writer = flags.live ? startLiveWriter(served.db, LIVE_BLOCK_MS, (err) => logger.warn({ err }, 'live demo: a block was not written')) : undefined;

  const drain = drainOf(app);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.server.shutdownGraceMs;
    logger.info({ signal, graceMs }, 'shutting down: no new connections, finishing the requests in flight');
    // a backstop: the drain ends by itself at the grace; closing must not hang past it
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, graceMs + SHUTDOWN_BACKSTOP_MS).unref();
    await writer?.stop();
    // the requests in flight finish (or are cut at the grace) before the pool goes
    const report = await drain.drain(graceMs);
    // probes were told "not ready" through the drain; now the management port goes too
    await management?.close();
    await app.close();
    // a pool whose network is cut never hears its connections close: bounded
    const databaseClosed = await Promise.race([served.close().then(() => true), sleep(DATABASE_CLOSE_MS, false)]);
    logger.info({ ...report, databaseClosed }, 'stopped');
    process.exit(report.cut > 0 ? 1 : 0);
  };
  signals.onSignal = (signal) => void shutdown(signal);
  if (signals.received) void shutdown(signals.received);
}
