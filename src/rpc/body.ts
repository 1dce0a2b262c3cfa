/**
 * A request body or message to JSON, refusing what could hurt the process: more bytes than
 * rpc.maxBodyBytes (never read past the limit), text that is not JSON, nesting deeper than
 * rpc.maxJsonDepth and batches of more requests than their limit (both counted from the bytes,
 * before anything is parsed).
 */
import type { Readable } from 'node:stream';
import { RpcError, rpcErrors } from './errors.ts';

export const TOO_LARGE = Symbol('too large');

/** The body's bytes, or TOO_LARGE as soon as it passes `limit` (the rest is discarded, not kept). */
export function readBody(stream: Readable, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.removeListener('data', onData);
        stream.resume();
        chunks.length = 0;
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/**
 * The shape of a JSON text, read from its bytes before it is parsed (nothing allocated for its
 * values): its deepest nesting, and the elements of the array it is (undefined when it is no
 * array; counted whole, for the relay's message names them). Stops as soon as the depth passes `maxDepth`.
 */
export function shapeOf(bytes: Buffer, maxDepth: number): { depth: number; items: number | undefined } {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let escaped = false;
  let array: boolean | undefined;
  let commas = 0;
  let content = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (array === undefined) array = c === 0x5b;
    if (c === 0x5b || c === 0x7b) {
      if (depth === 1) content = true;
      if (++depth > deepest && (deepest = depth) > maxDepth) break;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else {
      if (depth === 1) {
        content = true;
        if (c === 0x2c) commas++;
      }
      if (c === 0x22) inString = true;
    }
  }
  return { depth: deepest, items: array ? (content ? commas + 1 : 0) : undefined };
}

/**
 * The JSON of a body; the relay's parse error for anything else (with why, where it is a limit
 * here). Its depth and, where it is a batch, its requests are counted from its bytes before it is
 * parsed: a batch over `maxItems` is the relay's -32203 without a request of it made.
 */
export function parseJson(text: Buffer | string, maxDepth: number, maxItems = Infinity): unknown {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const { depth, items } = shapeOf(bytes, maxDepth);
  if (depth > maxDepth) throw new RpcError(-32700, `Parse error: JSON nested deeper than ${maxDepth} levels`, 'server');
  if (items !== undefined && items > maxItems) throw rpcErrors.batchTooLarge(items, maxItems);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw rpcErrors.parse();
  }
}
