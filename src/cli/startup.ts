import { accessSync, constants, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Config } from '../config/config.ts';
import { rootCause } from '../db/db.ts';

/**
 * Start-up checks of the CLI, each failing with one line that says what to check: the data
 * directory, the port, the PostgreSQL connection.
 */

export class StartupError extends Error {}

const LOCK_FILE = 'cqs.pid';

/**
 * Makes sure `dir` can hold the embedded database: creates it, checks that it is writable and that
 * it is either empty or a database directory, and takes a lock so that two processes never share
 * it. Returns whether a database already exists there and a function that releases the lock.
 */
export function prepareDataDir(dir: string): { existing: boolean; release: () => void } {
  try {
    makeDirectory(dir);
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.code === 'EROFS' ? 'read-only file system'
      : e.code === 'ENOTDIR' || e.code === 'EEXIST' ? 'a file is in the way'
      : e.message;
    const problem = e.code === 'ENOENT' ? 'cannot be created there' : `is not writable (${why})`;
    throw new StartupError(`the data directory ${dir} ${problem}; choose another with --data-dir, or use --memory`);
  }
  const entries = readdirSync(dir).filter((f) => f !== LOCK_FILE && !f.startsWith('.'));
  const existing = entries.includes('PG_VERSION');
  if (!existing && entries.length > 0) {
    throw new StartupError(`the data directory ${dir} is not empty and holds no database; choose an empty or new directory with --data-dir`);
  }
  const lock = join(dir, LOCK_FILE);
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new StartupError(`the data directory ${dir} is in use by process ${pid}; stop it first, or choose another with --data-dir`);
    }
  }
  try {
    writeFileSync(lock, `${process.pid}\n`);
  } catch (err) {
    throw new StartupError(`the data directory ${dir} is not writable (${(err as Error).message}); choose another with --data-dir, or use --memory`);
  }
  return {
    existing,
    release: () => {
      try {
        if (readFileSync(lock, 'utf8').trim() === String(process.pid)) rmSync(lock);
      } catch {
        // already gone
      }
    },
  };
}

/**
 * `mkdir -p`, one level at a time. Node's recursive mkdirSync loops forever, a core busy and signals
 * unanswered, where mkdir says ENOENT although the parent exists (a new directory under /proc).
 */
function makeDirectory(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirectory(parent);
  mkdirSync(dir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Fails fast when the port is taken, before minutes could be spent preparing a database. */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(new StartupError(portMessage(err, port, host))));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export function portMessage(err: NodeJS.ErrnoException, port: number, host: string): string {
  if (err.code === 'EADDRINUSE') return `port ${port} is already in use; set another with --port or HIERO_MIRROR_REST_PORT`;
  if (err.code === 'EACCES') return `no permission to listen on port ${port}; use a port above 1023 with --port`;
  if (err.code === 'EADDRNOTAVAIL') return `cannot listen on ${host}: no such address on this machine; check --host`;
  return `cannot listen on ${host}:${port}: ${err.message}`;
}

export interface Target {
  host: string;
  port: string;
  database: string;
  user: string;
  /** The URL with the password replaced by ***, for messages. */
  display: string;
}

/** Where a configuration points (DATABASE_URL, else the db.* keys), without the password. */
export function describeTarget(config: Config, url = config.databaseUrl): Target {
  if (url) {
    try {
      const u = new URL(url);
      if (u.password) u.password = '***';
      return {
        host: u.hostname || 'localhost',
        port: u.port || '5432',
        database: decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres',
        user: decodeURIComponent(u.username) || process.env.USER || 'postgres',
        display: u.toString(),
      };
    } catch {
      return { host: '?', port: '?', database: '?', user: '?', display: '(unparsable DATABASE_URL)' };
    }
  }
  const { host, port, name, username } = config.db;
  return { host, port: String(port), database: name, user: username, display: `postgres://${username}:***@${host}:${port}/${name}` };
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

/** One line saying what went wrong with a PostgreSQL connection and what to check. */
export function describeDbError(err: unknown, target: Target): string {
  const e = rootCause(err) as NodeJS.ErrnoException & { code?: string };
  const where = `${target.host}:${target.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `cannot connect to PostgreSQL at ${where} (connection refused): check that the server is running and the host and port of the database URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `unknown database host "${target.host}": check the host name of the database URL`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no answer from PostgreSQL at ${where}: check the host and port of the database URL and any firewall in between`;
    case '28P01':
      return `PostgreSQL at ${where} rejected the password of user "${target.user}": check the user name and password of the database URL`;
    case '28000':
      if (/no encryption/i.test(e.message)) {
        return `PostgreSQL at ${where} accepts only TLS connections (${e.message}): set db.tls.enabled to true, or sslmode=require in the database URL`;
      }
      return `PostgreSQL at ${where} refused user "${target.user}" (${e.message}): check the user name of the database URL and the server's pg_hba.conf`;
    case '3D000':
      return `database "${target.database}" does not exist on ${where}: create it (createdb ${target.database}) or fix the database name in the database URL`;
    case '57014':
      return `a statement on PostgreSQL at ${where} was canceled (${e.message}): it ran longer than db.pool.statementTimeout, or an operator canceled it`;
    case '57P03':
      return `PostgreSQL at ${where} is starting up or shutting down: try again in a moment`;
    default:
      if (/timeout/i.test(e.message)) {
        return `no answer from PostgreSQL at ${where} in time: check the host and port of the database URL and any firewall in between`;
      }
      if (/does not support SSL/i.test(e.message)) {
        return `PostgreSQL at ${where} does not accept TLS connections: set db.tls.enabled to false (and no sslmode in the database URL), or turn ssl on in the server`;
      }
      if (/SSL|TLS|self.signed|certificate/i.test(e.message)) {
        // OpenSSL's message spans lines and names its source files; its reason is the part that says something
        const reason = (e as { reason?: unknown }).reason;
        return `TLS problem with PostgreSQL at ${where} (${typeof reason === 'string' ? reason : oneLine(e.message)}): check the files of db.tls.ca, db.tls.cert and db.tls.key, or the sslmode parameters of the database URL`;
      }
      return `cannot use the database ${target.display}: ${oneLine(e.message)}`;
  }
}
