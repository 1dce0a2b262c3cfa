/**
 * Content-encoding of answers (response.compression): the options @fastify/compress is registered
 * with, and the same negotiation and compression for the copies the in-process cache tier keeps
 * (cacheHits.ts), so that a compressed hit sent before routing is byte for byte what the plugin
 * would have produced.
 */
import type { IncomingHttpHeaders } from 'node:http';
import negotiate from '@fastify/accept-negotiator';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';

export type ContentEncoding = 'br' | 'gzip' | 'deflate';

const ENCODINGS: ContentEncoding[] = ['br', 'gzip', 'deflate'];

/** Smaller answers are sent as they are. */
const COMPRESSION_THRESHOLD = 1024;

/**
 * Answers up to this size are compressed in one synchronous call and sent with a Content-Length;
 * larger ones are streamed (chunked). Fixed here instead of the plugin's default, which depends on
 * the machine's core count, so that every deployment frames its answers alike.
 */
export const SYNC_COMPRESSION_MAX = 64 * 1024;

/** Brotli at quality 4, the plugin's own recommendation (11, zlib's default, is far slower). */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/** The options of @fastify/compress. */
/** The plugin's own compressible types, and NDJSON (whole listings, an addition: server/streams/ndjson.ts). */
const COMPRESSIBLE_TYPES = /^text\/(?!event-stream)|(?:\+|\/)json(?:;|$)|(?:\+|\/)text(?:;|$)|(?:\+|\/)xml(?:;|$)|octet-stream(?:;|$)|\/x-ndjson(?:;|$)/u;

export const compressOptions = {
  global: true,
  customTypes: COMPRESSIBLE_TYPES,
  threshold: COMPRESSION_THRESHOLD,
  syncThreshold: SYNC_COMPRESSION_MAX,
  encodings: ENCODINGS,
  brotliOptions: BROTLI_OPTIONS,
};

/** "*" and "x-gzip" count as gzip, as the plugin reads Accept-Encoding. */
const GZIP_ALIAS = /\*|x-gzip/gu;

/**
 * The encoding the plugin picks for an Accept-Encoding header, among exactly the encodings it was
 * given (in that order of preference); undefined when none is acceptable: the answer then goes out
 * as it is.
 */
function negotiatedEncoding(acceptEncoding: string): ContentEncoding | undefined {
  return negotiate(acceptEncoding.toLowerCase().replace(GZIP_ALIAS, 'gzip'), ENCODINGS) ?? undefined;
}

/**
 * The content-encoding the plugin gives an answer (of `status`, `length` bytes, JSON) to a request
 * with these headers; undefined when it sends the answer as it is. (Whether it compresses in one go
 * or streams is SYNC_COMPRESSION_MAX's.)
 */
export function encodingFor(headers: IncomingHttpHeaders, status: number, length: number): ContentEncoding | undefined {
  const accepted = headers['accept-encoding'];
  if (accepted === undefined || length < COMPRESSION_THRESHOLD || status === 206 || headers['x-no-compression'] !== undefined) return undefined;
  return negotiatedEncoding(accepted);
}

/** `body` compressed as the plugin compresses a buffered answer. */
export function compressBody(encoding: ContentEncoding, body: Buffer): Buffer {
  if (encoding === 'br') return brotliCompressSync(body, BROTLI_OPTIONS);
  return encoding === 'gzip' ? gzipSync(body) : deflateSync(body);
}
