#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { VERSION } from './version.ts';
import { runMigrate } from './cli/migrate.ts';
import { PROBE_KINDS, type ProbeKind, runProbe } from './cli/probe.ts';
import { isPrimary } from './cli/cluster.ts';
import { fail, status } from './cli/output.ts';
import { runSeed } from './cli/seed.ts';
import { runServe } from './cli/serve.ts';
import { ConfigError, type Config, loadConfig } from './config/config.ts';

const USAGE = `Usage:
  contract-query-service serve [--port N] [--host H] [--data-dir DIR | --memory] [--migrate] [--workers N] [--live]
                               [--networks NAME,...]
  contract-query-service seed [--scale N] [--database-url URL | --data-dir DIR] [--force] [--live]
  contract-query-service migrate [--database-url URL] [--recommended-indexes]
  contract-query-service probe readiness|liveness

serve    Serves the API. Without DATABASE_URL (or db.* configuration) it uses an embedded
         PostgreSQL (PGlite) kept in --data-dir (default ./data, or $DATA_DIR), migrated
         automatically and, on the first start, filled with a generated demo network (5 days of an
         ERC-20 token, an AMM pair, an NFT collection and more; the banner lists example URLs).
         Later starts reuse it. --memory uses a throwaway in-memory database. With DATABASE_URL it
         serves that PostgreSQL as it is, read-only; --migrate first creates the schema if it is
         empty. --workers N (or $WORKERS; PostgreSQL only) runs N processes sharing the port, each
         with its own pool of db.pool.maxConnections. --live (embedded demo only) keeps extending the
         demo network with a new block every 2 s, stamped with the current time: its logs arrive on
         the live logs stream (Accept: text/event-stream on the logs listings). --networks
         testnet,previewnet (embedded only) serves each network (mainnet-public, mainnet, testnet,
         previewnet) from an embedded database of its own (<data dir>/<network>, a demo network each);
         the first label of a request's Host picks it, the first network serves other hosts.
seed     Writes the demo network at --scale N (default 1: about 6,300 contract results and
         12,500 logs; sizes grow linearly) into PostgreSQL (DATABASE_URL or --database-url), or
         without a URL into the embedded database in --data-dir. Creates the schema in an empty
         database and replaces an earlier demo network. It refuses a database holding data it did
         not create - a mirror node's database belongs to its importer - unless --force, which
         empties and refills the tables it writes. --live then keeps writing a new block every 2 s
         (an importer-like writer for tests and benchmarks) until Ctrl-C.
migrate  Creates the mirror node schema in an empty PostgreSQL database (DATABASE_URL or
         --database-url) and exits. A database already filled by the importer is left alone;
         --recommended-indexes adds the service's recommended indexes to it (CREATE INDEX
         CONCURRENTLY, so the importer keeps writing; needs a user allowed to create indexes).
probe    Asks the service running on this host (127.0.0.1 and the configured port) for
         /health/readiness or /health/liveness; exits 0 when it answers 200, else 1 (the container
         image's HEALTHCHECK).`;

function parseWorkers(text: string): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) < 1) fail(`--workers must be a whole number from 1 to 999, got ${JSON.stringify(text)}`, 2);
  return Number(text);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string', default: '0.0.0.0' },
        'data-dir': { type: 'string', default: process.env.DATA_DIR || './data' },
        memory: { type: 'boolean', default: false },
        migrate: { type: 'boolean', default: false },
        workers: { type: 'string', default: process.env.WORKERS || '1' },
        'database-url': { type: 'string' },
        scale: { type: 'string', default: '1' },
        force: { type: 'boolean', default: false },
        live: { type: 'boolean', default: false },
        networks: { type: 'string' },
        'recommended-indexes': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}; see --help`, 2);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`contract-query-service ${VERSION}\n`);
    return;
  }
  const command = positionals[0] ?? 'serve';
  const probeKind = command === 'probe' ? positionals[1] : undefined;
  const badProbe = command === 'probe' && !PROBE_KINDS.includes(probeKind as ProbeKind);
  const extraPositionals = positionals.length > (command === 'probe' ? 2 : 1);
  if (values.help || extraPositionals || badProbe || !['serve', 'migrate', 'seed', 'probe'].includes(command)) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(values.help ? 0 : 2);
  }
  let config: Config;
  try {
    const env = { ...process.env };
    if (values['database-url']) env.DATABASE_URL = values['database-url'];
    config = loadConfig(env, process.cwd(), values.port ? { port: values.port } : {});
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
  if (command === 'probe') return runProbe(config, probeKind as ProbeKind);
  if (isPrimary()) for (const warning of config.warnings) status(`warning: ${warning}`);
  switch (command) {
    case 'migrate':
      return runMigrate(config, values['database-url'], values['recommended-indexes']!);
    case 'seed':
      return runSeed(config, {
        scale: values.scale!,
        force: values.force!,
        dataDir: values['data-dir']!,
        memory: values.memory!,
        url: values['database-url'],
        live: values.live!,
      });
    default:
      return runServe(config, {
        host: values.host!,
        dataDir: values['data-dir']!,
        template: process.env.DATA_TEMPLATE || undefined,
        memory: values.memory!,
        migrate: values.migrate!,
        workers: parseWorkers(values.workers!),
        live: values.live!,
        networks: values.networks ? values.networks.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean) : [],
      });
  }
}

main().catch((err) => fail((err as Error).stack ?? String(err)));
