import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/**
 * A packed embedded database: a data directory as one brotli-compressed file, which a first start
 * copies into an empty data directory instead of creating the database and the demo network
 * (DATA_TEMPLATE; the container image ships the demo network's this way). The format is this
 * module's own: a magic line, then compressed records of a type ('d' folder, 'f' file), the path's
 * length (u16) and bytes, the mode (u32) and, for a file, its length (u32) and bytes.
 */
const MAGIC = Buffer.from('contract-query-service data template 1\n');

interface Entry {
  path: string;
  dir: boolean;
  mode: number;
  data?: Buffer;
}

function walk(root: string, rel: string, skip: (rel: string) => boolean, out: Entry[]): void {
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    if (skip(path)) continue;
    const stat = statSync(join(root, path));
    if (stat.isDirectory()) {
      out.push({ path, dir: true, mode: stat.mode & 0o7777 });
      walk(root, path, skip, out);
    } else if (stat.isFile()) {
      out.push({ path, dir: false, mode: stat.mode & 0o7777, data: readFileSync(join(root, path)) });
    }
  }
}

/** Packs the folder `dir` (its files and folders, without those `skip` names) into `file`. */
export function packDirectory(dir: string, file: string, skip: (rel: string) => boolean = () => false): { files: number; bytes: number; packedBytes: number } {
  const entries: Entry[] = [];
  walk(dir, '', skip, entries);
  const parts: Buffer[] = [];
  let bytes = 0;
  for (const entry of entries) {
    const path = Buffer.from(entry.path);
    const head = Buffer.alloc(1 + 2 + path.length + 4 + (entry.dir ? 0 : 4));
    head.write(entry.dir ? 'd' : 'f', 0, 'latin1');
    head.writeUInt16LE(path.length, 1);
    path.copy(head, 3);
    head.writeUInt32LE(entry.mode, 3 + path.length);
    if (!entry.dir) head.writeUInt32LE(entry.data!.length, 7 + path.length);
    parts.push(head);
    if (!entry.dir) {
      parts.push(entry.data!);
      bytes += entry.data!.length;
    }
  }
  const packed = brotliCompressSync(Buffer.concat(parts), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: 24 },
  });
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, MAGIC);
    writeSync(fd, packed);
  } finally {
    closeSync(fd);
  }
  return { files: entries.filter((e) => !e.dir).length, bytes, packedBytes: MAGIC.length + packed.length };
}

function readEntries(file: string): Entry[] {
  const raw = readFileSync(file);
  if (raw.length < MAGIC.length || !raw.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${file} is not a packed data directory`);
  const body = brotliDecompressSync(raw.subarray(MAGIC.length));
  const entries: Entry[] = [];
  let at = 0;
  while (at < body.length) {
    const type = String.fromCharCode(body[at]!);
    const pathLength = body.readUInt16LE(at + 1);
    const path = body.toString('utf8', at + 3, at + 3 + pathLength);
    at += 3 + pathLength;
    const mode = body.readUInt32LE(at);
    at += 4;
    if (type !== 'd' && type !== 'f') throw new Error(`${file} is damaged (record type ${JSON.stringify(type)})`);
    if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) throw new Error(`${file} is damaged (path ${JSON.stringify(path)})`);
    if (type === 'd') {
      entries.push({ path, dir: true, mode });
      continue;
    }
    const length = body.readUInt32LE(at);
    at += 4;
    if (at + length > body.length) throw new Error(`${file} is damaged (it ends inside ${path})`);
    entries.push({ path, dir: false, mode, data: body.subarray(at, at + length) });
    at += length;
  }
  return entries;
}

/** The folder an unpack writes into before it moves the result in: hidden, so an interrupted one is no database. */
const UNPACK_DIR = '.template-unpacking';

/**
 * Unpacks `file` into the empty data directory `dir`: into a hidden folder first, then moved in with
 * PG_VERSION last, so that a start interrupted on the way leaves no half database that a later start
 * would take for one. Returns the bytes written.
 */
export function unpackDirectory(file: string, dir: string): number {
  const entries = readEntries(file);
  const staging = join(dir, UNPACK_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o700 });
  let bytes = 0;
  for (const entry of entries) {
    const target = join(staging, entry.path);
    if (entry.dir) {
      mkdirSync(target, { mode: entry.mode });
    } else {
      const fd = openSync(target, 'w', entry.mode);
      try {
        writeSync(fd, entry.data!);
      } finally {
        closeSync(fd);
      }
      bytes += entry.data!.length;
    }
  }
  const top = readdirSync(staging).sort((a, b) => Number(a === 'PG_VERSION') - Number(b === 'PG_VERSION'));
  for (const name of top) renameSync(join(staging, name), join(dir, name));
  rmSync(staging, { recursive: true, force: true });
  return bytes;
}
