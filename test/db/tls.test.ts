import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createServer as createTlsServer } from 'node:tls';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { createPostgresDb, postgresOptionsFromConfig } from '../../src/db/postgres.ts';
import { describeDbError, describeTarget } from '../../src/cli/startup.ts';
import { ROOT, runCli } from '../cli/run.ts';

/**
 * db.tls.* (the reference's keys) become node-postgres' `ssl` the way the reference's dbpool.js
 * sets it; a real TLS connection to PostgreSQL goes through a TLS-terminating proxy that demands
 * the client certificate; a server without TLS is one clear line.
 */

const url = process.env.TEST_DATABASE_URL;
const FIXTURES = join(ROOT, 'test', 'fixtures', 'tls');
const pem = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const TLS_ENV = {
  HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true',
  HIERO_MIRROR_REST_DB_TLS_CA: join(FIXTURES, 'ca.crt'),
  HIERO_MIRROR_REST_DB_TLS_CERT: join(FIXTURES, 'client.crt'),
  HIERO_MIRROR_REST_DB_TLS_KEY: join(FIXTURES, 'client.key'),
};

/** PostgreSQL's SSLRequest code (the first 8 bytes a TLS client sends). */
const SSL_REQUEST = 80877103;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const closeServer = (server: Server, sockets: Set<Socket>) =>
  new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  });

test('db.tls.* from the environment or application.yml map onto node-postgres ssl options', () => {
  const disabled = loadConfig({}, '/nonexistent');
  assert.equal(postgresOptionsFromConfig(disabled).ssl, undefined);

  const env = loadConfig({ DATABASE_URL: 'postgres://u@h/db', ...TLS_ENV }, '/nonexistent');
  assert.deepEqual(postgresOptionsFromConfig(env).ssl, {
    rejectUnauthorized: false,
    ca: pem('ca.crt'),
    cert: pem('client.crt'),
    key: pem('client.key'),
  });
  assert.deepEqual(env.warnings, [], 'db.tls.* is honoured, not ignored');

  const onlyEnabled = loadConfig({ HEDERA_MIRROR_REST_DB_TLS_ENABLED: 'true' }, '/nonexistent');
  assert.deepEqual(postgresOptionsFromConfig(onlyEnabled).ssl, { rejectUnauthorized: false });

  const dir = mkdtempSync(join(tmpdir(), 'cqs-tls-'));
  try {
    writeFileSync(
      join(dir, 'application.yml'),
      `hiero:\n  mirror:\n    rest:\n      db:\n        tls:\n          enabled: true\n          ca: ${join(FIXTURES, 'ca.crt')}\n`,
    );
    const file = loadConfig({}, dir);
    assert.deepEqual(postgresOptionsFromConfig(file).ssl, { rejectUnauthorized: false, ca: pem('ca.crt') });
    assert.deepEqual(file.warnings, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // files are read only when TLS is on; one that cannot be read stops the start with one line
  assert.equal(loadConfig({ HIERO_MIRROR_REST_DB_TLS_CA: '/no/such/ca.crt' }, '/nonexistent').db.tls.ca, undefined);
  assert.throws(
    () => loadConfig({ HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true', HIERO_MIRROR_REST_DB_TLS_CA: '/no/such/ca.crt' }, '/nonexistent'),
    (e: unknown) => e instanceof ConfigError && e.message === 'Invalid configuration: db.tls.ca names "/no/such/ca.crt", which cannot be read (no such file)',
  );
  assert.throws(() => loadConfig({ HIERO_MIRROR_REST_DB_TLS_ENABLED: 'yes' }, '/nonexistent'), /db\.tls\.enabled must be true or false/);
});

test('a real TLS connection with the client certificate (a TLS-terminating proxy in front of PostgreSQL)', { skip: url ? false : 'needs TEST_DATABASE_URL' }, async () => {
  const target = new URL(url!);
  const peers: Array<{ authorized: boolean; cn: unknown }> = [];
  const sockets = new Set<Socket>();
  // after the plain SSLRequest/'S' exchange, the socket is handed to a TLS server that demands a
  // client certificate signed by the test CA, and the decrypted stream goes on to PostgreSQL
  const terminator = createTlsServer(
    { key: pem('server.key'), cert: pem('server.crt'), ca: pem('ca.crt'), requestCert: true, rejectUnauthorized: true },
    (secure) => {
      peers.push({ authorized: secure.authorized, cn: secure.getPeerCertificate().subject?.CN });
      const database = connect(Number(target.port || 5432), target.hostname);
      sockets.add(database);
      secure.pipe(database).pipe(secure);
      const drop = () => {
        secure.destroy();
        database.destroy();
      };
      secure.on('error', drop).on('close', drop);
      database.on('error', drop).on('close', drop);
    },
  );
  terminator.on('tlsClientError', () => {});
  const proxy = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', (first: Buffer) => {
      if (first.length !== 8 || first.readInt32BE(4) !== SSL_REQUEST) {
        socket.destroy(); // this server takes TLS only
        return;
      }
      socket.pause();
      socket.write('S', () => terminator.emit('connection', socket));
    });
  });
  const port = await listen(proxy);
  const via = new URL(url!);
  via.hostname = '127.0.0.1';
  via.port = String(port);
  try {
    const config = loadConfig({ DATABASE_URL: via.toString(), ...TLS_ENV }, '/nonexistent');
    const db = createPostgresDb(config);
    try {
      const [row] = await db.query<{ one: number }>('select 1 as one');
      assert.equal(row!.one, 1);
    } finally {
      await db.close();
    }
    assert.deepEqual(peers, [{ authorized: true, cn: 'mirror_api' }]);

    // without the client certificate the proxy refuses the handshake: one line naming the TLS keys
    const bare = loadConfig({ DATABASE_URL: via.toString(), HIERO_MIRROR_REST_DB_TLS_ENABLED: 'true' }, '/nonexistent');
    const refused = createPostgresDb(bare);
    try {
      const error = await refused.query('select 1').then(() => undefined, (err: unknown) => err);
      assert.ok(error, 'refused');
      const line = describeDbError(error, describeTarget(bare));
      assert.doesNotMatch(line, /\n/);
      assert.match(line, new RegExp(`^(TLS problem with PostgreSQL at 127\\.0\\.0\\.1:${port} \\(.+\\): check the files of db\\.tls\\.ca, db\\.tls\\.cert and db\\.tls\\.key|cannot use the database .*Connection terminated unexpectedly)`));
    } finally {
      await refused.close();
    }
  } finally {
    await closeServer(proxy, sockets);
  }
});

test('a server that does not take TLS: one clear line', async () => {
  const sockets = new Set<Socket>();
  // answers an SSLRequest as a PostgreSQL without ssl does: 'N'
  const plain = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => socket.end('N'));
  });
  const port = await listen(plain);
  try {
    const { code, stderr } = await runCli(['migrate', '--database-url', `postgres://mirror_api:pw@127.0.0.1:${port}/mirror_node`], TLS_ENV);
    assert.equal(code, 1);
    assert.equal(
      stderr.trim(),
      `error: PostgreSQL at 127.0.0.1:${port} does not accept TLS connections: set db.tls.enabled to false (and no sslmode in the database URL), or turn ssl on in the server`,
    );
  } finally {
    await closeServer(plain, sockets);
  }
});
