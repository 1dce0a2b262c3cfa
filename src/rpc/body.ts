/**
 * A request body or message to JSON, refusing what could hurt the process: more bytes than
 * rpc.maxBodyBytes (never read past the limit), text that is not JSON, and nesting deeper than
 * rpc.maxJsonDepth (checked without recursion).
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

/** The depth of nested arrays and objects of a parsed value, counted without recursion, stopping past `max`. */
function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The JSON of a body; the relay's parse error for anything else (with why, where it is a limit here). */
export function parseJson(text: Buffer | string, maxDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  } catch {
    throw rpcErrors.parse();
  }
  if (deeperThan(value, maxDepth)) throw new RpcError(-32700, `Parse error: JSON nested deeper than ${maxDepth} levels`, 'server');
  return value;
}
