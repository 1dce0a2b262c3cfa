/**
 * A scratch database on the machine's PostgreSQL for the image test: created, filled with the demo
 * network by the image's own `seed`, and readable by a login role that may only read it (as a
 * mirror node's `mirror_api` user); dropped with its role afterwards. The server is the one of
 * TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), reached as a superuser.
 */
import pg from 'pg';
import { IMAGE, RUN_FLAGS, podman } from './podman.ts';

export interface ScratchDatabase {
  name: string;
  role: string;
  adminUrl: string;
  readerUrl: string;
  serverUrl: string;
}

function withDatabase(url: string, database: string, user?: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (user) {
    u.username = user;
    u.password = '';
  }
  return u.toString();
}

async function run(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function makeScratchDatabase(tag: string): Promise<ScratchDatabase> {
  const serverUrl = withDatabase(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'postgres');
  const name = tag.replace(/-/g, '_');
  const role = `${name}_reader`;
  const scratch = { name, role, serverUrl, adminUrl: withDatabase(serverUrl, name), readerUrl: withDatabase(serverUrl, name, role) };
  await dropScratchDatabase(scratch);
  await run(serverUrl, [`create database ${name}`, `create role ${role} login`]);
  // the image's own seed, over the host's network
  podman(['run', '--rm', ...RUN_FLAGS, '--network', 'host', IMAGE, 'seed', '--database-url', scratch.adminUrl], { timeoutMs: 300_000 });
  await run(scratch.adminUrl, [
    `grant connect on database ${name} to ${role}`,
    `grant usage on schema public to ${role}`,
    `grant select on all tables in schema public to ${role}`,
  ]);
  return scratch;
}

export async function dropScratchDatabase(scratch: ScratchDatabase): Promise<void> {
  await run(scratch.serverUrl, [
    `drop database if exists ${scratch.name} with (force)`,
    `drop role if exists ${scratch.role}`,
  ]);
}
