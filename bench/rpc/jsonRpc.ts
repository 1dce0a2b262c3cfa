/** One JSON-RPC POST to an endpoint, timed, with a timeout reported as such rather than as an error. */

export interface Reply {
  /** HTTP status; 0 when there was no answer (timeout or connection error) */
  status: number;
  /** the body as received */
  text: string;
  /** the body parsed, or undefined when it is not JSON */
  json: unknown;
  ms: number;
  timedOut: boolean;
  /** a connection error's code or message */
  error?: string;
}

/**
 * POSTs `body` (a request object or a batch array, or a raw string sent as is) as JSON to `url`.
 * With `requestId`, as `Request-Id` (the relay's header) and `X-Request-Id` (this service's): both
 * put it in their error messages, which then compare equal.
 */
export async function post(url: string, body: unknown, timeoutMs: number, requestId?: string): Promise<Reply> {
  const t0 = performance.now();
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: requestId ? { 'content-type': 'application/json', 'request-id': requestId, 'x-request-id': requestId } : { 'content-type': 'application/json' },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    return { status: res.status, text, json: parse(text), ms: performance.now() - t0, timedOut: false };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
    return { status: 0, text: '', json: undefined, ms: performance.now() - t0, timedOut, error: timedOut ? undefined : (err.cause?.code ?? err.message) };
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC 2.0 request object. */
export function call(id: number | string, method: string, params?: unknown): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}
