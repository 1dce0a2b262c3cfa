/**
 * The demo network's embedded database for the container image (its DATA_TEMPLATE), made at image
 * build time so that a first start copies it (well under a second) instead of creating it (issue 47,
 * item 5). The bundle the image runs seeds a new data directory (`seed --data-dir`), with the
 * Node.js the image runs; the WAL segments a cleanly stopped database does not need are left out
 * (PGlite keeps five 16 MB segments, four of them recycled for later use); then it is packed
 * (src/cli/template.ts) and checked by unpacking it and reading it back.
 *
 *   node --import tsx image/demoData.ts APP_DIR OUT_FILE     (run by image/build.sh)
 */
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packDirectory, unpackDirectory } from '../src/cli/template.ts';

const [appDir, outFile] = process.argv.slice(2);
if (!appDir || !outFile) {
  process.stderr.write('usage: node --import tsx image/demoData.ts APP_DIR OUT_FILE\n');
  process.exit(2);
}

const open = (dir: string) => PGlite.create(dir, { extensions: { btree_gist, pg_trgm } });
const LOCK_FILE = 'cqs.pid';

async function walRange(dir: string): Promise<{ redo: string; current: string }> {
  const db = await open(dir);
  try {
    await db.exec('checkpoint');
    const { rows } = await db.query<{ redo: string; current: string }>(
      'select redo_wal_file as redo, pg_walfile_name(pg_current_wal_lsn()) as current from pg_control_checkpoint()',
    );
    return rows[0]!;
  } finally {
    await db.close();
  }
}

/** A WAL file's position: its name is timeline, log and segment in hex. */
const segment = (name: string): bigint => BigInt(`0x${name.slice(8)}`);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cqs-demo-data-'));
  const dataDir = join(work, 'data');
  try {
    const started = performance.now();
    const seeded = spawnSync(process.execPath, [join(appDir!, 'dist', 'cli.js'), 'seed', '--data-dir', dataDir], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (seeded.status !== 0) throw new Error(`seed exited with ${seeded.status ?? seeded.signal}`);
    // Keep the checkpoint's segment up to the one after the current (the shutdown checkpoint that
    // closing writes may start it); the others are recycled files a cleanly stopped server never reads.
    const { redo, current } = await walRange(dataDir);
    const wal = join(dataDir, 'pg_wal');
    const dropped = readdirSync(wal).filter((name) => /^[0-9A-F]{24}$/.test(name) && (segment(name) < segment(redo) || segment(name) > segment(current) + 1n));
    for (const name of dropped) rmSync(join(wal, name));
    const packed = packDirectory(dataDir, outFile!, (rel) => rel === LOCK_FILE);

    // read it back as a first start would
    const check = join(work, 'check');
    unpackDirectory(outFile!, check);
    const db = await open(check);
    const { rows } = await db.query<{ logs: number }>('select count(*)::int as logs from contract_log');
    await db.close();
    if (!(rows[0]!.logs > 0)) throw new Error('the packed database holds no logs');
    const mb = (n: number) => (n / 1e6).toFixed(1);
    process.stdout.write(
      `demo data: ${packed.files} files, ${mb(packed.bytes)} MB (${dropped.length} spare WAL segments left out), packed ${mb(packed.packedBytes)} MB, ` +
        `${rows[0]!.logs} logs read back, ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`demo data: ${(err as Error).message}\n`);
  process.exit(1);
});
