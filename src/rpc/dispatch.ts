/**
 * One JSON-RPC request to its answer, as the relay's server checks it: `jsonrpc` "2.0", a `method`
 * and an `id` (else Invalid Request, with the id where it had a truthy one), then the method with
 * its params. Errors that are not the relay's (a database that cannot answer, a fault) become its
 * internal error.
 */
import { DatabaseUnavailableError } from '../db/db.ts';
import type { MethodAnswer } from './answer.ts';
import { RpcError, rpcErrors } from './errors.ts';
import { measured } from './metrics.ts';
import { type MethodContext, methodOf } from './methods.ts';

/** A request's id as written back: a string or number as given, anything else null. */
export type RpcId = string | number | null;

export type Outcome = { id: RpcId; answer: MethodAnswer } | { id: RpcId; error: RpcError };

const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);
const idOf = (value: unknown): RpcId => (typeof value === 'string' || typeof value === 'number' ? value : null);

/** The request's id if it is an object with one, for the answers given before the method runs. */
export const requestIdOf = (request: unknown): RpcId =>
  typeof request === 'object' && request !== null && !Array.isArray(request) ? idOf((request as { id?: unknown }).id) : null;

/**
 * The checks of a JSON-RPC 2.0 request (the relay's validateJsonRpcRequest); the request or
 * undefined. A method that is not a string is an Invalid Request, as JSON-RPC 2.0 says (the relay
 * looks such a method up and answers -32601 "Method 123 not found": docs/compatibility.md).
 */
function validRequest(request: unknown): { id: RpcId; method: string; params: unknown } | undefined {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return undefined;
  const r = request as Record<string, unknown>;
  if (r.jsonrpc !== '2.0' || !hasOwn(r, 'method') || !hasOwn(r, 'id') || typeof r.method !== 'string') return undefined;
  if (r.id !== null && typeof r.id !== 'string' && typeof r.id !== 'number') return undefined;
  return { id: r.id as RpcId, method: r.method, params: r.params };
}

export function asRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof DatabaseUnavailableError) return rpcErrors.unavailable();
  return rpcErrors.internal(err instanceof Error ? err.message : String(err));
}

/** Starts the count of one request (metrics.ts): its `done(code)` once it is answered. */
export type Measure = (method: unknown) => (code: number | 'ok') => void;

const methodOfRequest = (request: unknown): unknown =>
  typeof request === 'object' && request !== null ? (request as { method?: unknown }).method : undefined;

/**
 * Runs one request, alone or as an item of a batch alike (the relay refuses its filter methods in a
 * batch, -32007; they are answered here: docs/compatibility.md); `measure`: counted (metrics.ts).
 */
export async function dispatch(request: unknown, context: MethodContext, measure?: Measure): Promise<Outcome> {
  if (measure === undefined) return run(request, context);
  const done = measure(methodOfRequest(request));
  const outcome = await run(request, context);
  if ('error' in outcome) {
    done(outcome.error.code);
    return outcome;
  }
  return { id: outcome.id, answer: measured(outcome.answer, done, (err) => asRpcError(err).code) };
}

async function run(request: unknown, context: MethodContext): Promise<Outcome> {
  const valid = validRequest(request);
  if (valid === undefined) {
    const id = requestIdOf(request);
    return { id: id || null, error: rpcErrors.invalidRequest() };
  }
  const { id, method, params } = valid;
  try {
    return { id, answer: await methodOf(method)(context, params) };
  } catch (err) {
    return { id, error: asRpcError(err) };
  }
}
