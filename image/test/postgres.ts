/**
 * A scratch database on the machine's PostgreSQL for the image test: created, filled with the demo
 * network by the image's own `seed`, and readable by a login role that may only read it (as a
 * mirror node's `mirror_api` user); dropped with its role afterwards. The server is the one of
 * TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), reached as a superuser.
 */
import { runStatements } from '../../test/support/sqlScript.ts';
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

export async function makeScratchDatabase(tag: string): Promise<ScratchDatabase> {
  const serverUrl = withDatabase(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'postgres');
  const name = tag.replace(/-/g, '_');
  const role = `${name}_reader`;
  const scratch = { name, role, serverUrl, adminUrl: withDatabase(serverUrl, name), readerUrl: withDatabase(serverUrl, name, role) };
  await dropScratchDatabase(scratch);
  await runStatements(serverUrl, [`create database ${name}`, `create role ${role} login`]);
  // the image's own seed, over the host's network
  podman(['run', '--rm', ...RUN_FLAGS, '--network', 'host', IMAGE, 'seed', '--database-url', scratch.adminUrl], { timeoutMs: 300_000 });
  await runStatements(scratch.adminUrl, [
    `grant connect on database ${name} to ${role}`,
    `grant usage on schema public to ${role}`,
    `grant select on all tables in schema public to ${role}`,
  ]);
  return scratch;
}

export async function dropScratchDatabase(scratch: ScratchDatabase): Promise<void> {
  await runStatements(scratch.serverUrl, [
    `drop database if exists ${scratch.name} with (force)`,
    `drop role if exists ${scratch.role}`,
  ]);
}
