/**
 * An answer (../answer/answer.ts) as one Redis value: a JSON line with its fields, then the body (gzipped
 * when cache.response.compress is on and the body has at least 150 bytes, as the reference stores it).
 */
import { promisify } from 'node:util';
import { constants, gunzipSync, gzip, gzipSync } from 'node:zlib';
import type { Answer } from '../answer/answer.ts';

/** The reference's cache.response.compressThreshold. */
export const COMPRESS_THRESHOLD = 150;

interface Fields {
  s: 200 | 206;
  e: string;
  c: string;
  l?: string;
  /** Indexed-Through. */
  i?: string;
  /** The body is gzipped. */
  z?: 1;
}

const NEWLINE = 0x0a;

const gzipAsync = promisify(gzip);

/**
 * The fastest gzip level: at the default level, compressing every computed answer on the event
 * loop was a tenth of the process's CPU under a cached load; level 1 costs a few points of ratio.
 */
const GZIP_OPTIONS = { level: constants.Z_BEST_SPEED };

/**
 * Bodies from this size up are gzipped on libuv's thread pool, smaller ones in place. Handing a job
 * to the pool and taking its result back cost the event loop more than compressing a few KiB at
 * the fastest level (measured: 0.075 ms against 0.025 ms for 6 KB; about even at 40 KB), and on two
 * cores the pool's threads take their CPU from the event loop anyway.
 */
export const GZIP_IN_POOL_FROM = 32 * 1024;

const gzipBody = (body: Buffer): Buffer | Promise<Buffer> =>
  body.length >= GZIP_IN_POOL_FROM ? gzipAsync(body, GZIP_OPTIONS) : gzipSync(body, GZIP_OPTIONS);

/** The value stored in Redis for `answer`. */
export async function encodeAnswer(answer: Answer, compress: boolean): Promise<Buffer> {
  const zipped = compress && answer.body.length >= COMPRESS_THRESHOLD;
  const fields: Fields = { s: answer.status, e: answer.etag, c: answer.cacheControl };
  if (answer.link !== undefined) fields.l = answer.link;
  if (answer.indexedThrough !== undefined) fields.i = answer.indexedThrough;
  if (zipped) fields.z = 1;
  return Buffer.concat([Buffer.from(`${JSON.stringify(fields)}\n`), zipped ? await gzipBody(answer.body) : answer.body]);
}

/** The answer stored in `value`; undefined for a value this version did not write. */
export function decodeAnswer(value: Buffer): Answer | undefined {
  const end = value.indexOf(NEWLINE);
  if (end < 0) return undefined;
  let fields: Partial<Fields>;
  try {
    fields = JSON.parse(value.subarray(0, end).toString('utf8')) as Partial<Fields>;
    if ((fields.s !== 200 && fields.s !== 206) || typeof fields.e !== 'string' || typeof fields.c !== 'string') return undefined;
    if (fields.l !== undefined && typeof fields.l !== 'string') return undefined;
    if (fields.i !== undefined && typeof fields.i !== 'string') return undefined;
    const stored = value.subarray(end + 1);
    const body = fields.z === 1 ? gunzipSync(stored) : Buffer.from(stored);
    return {
      status: fields.s,
      body,
      etag: fields.e,
      cacheControl: fields.c,
      ...(fields.l === undefined ? {} : { link: fields.l }),
      ...(fields.i === undefined ? {} : { indexedThrough: fields.i }),
    };
  } catch {
    return undefined;
  }
}

