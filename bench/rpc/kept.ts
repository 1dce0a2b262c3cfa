/**
 * The differences from the relay this endpoint keeps on purpose (docs/compatibility.md, "Compared
 * with the relay"), each recognised from the request and the two answers: A is the relay, B this
 * endpoint. A difference that matches one is reported as `kept` with its name, not as a failure; any
 * other difference still fails the run. A batch is kept when each of its items is equal or kept.
 */
import type { Reply } from './jsonRpc.ts';
import { NO_REPLY } from './wsJsonRpc.ts';

type Json = unknown;
interface ErrorBody {
  error?: { code?: number; message?: string };
  result?: unknown;
}

const errorOf = (json: Json): ErrorBody['error'] =>
  json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as ErrorBody).error : undefined;
const isObject = (v: Json): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The request as the endpoints read it: a raw string body is parsed (undefined when it is not JSON). */
function parsedRequest(request: Json): Json {
  if (typeof request !== 'string') return request;
  try {
    return JSON.parse(request) as Json;
  } catch {
    return undefined;
  }
}

/** The filter object of an eth_getLogs / eth_newFilter / eth_subscribe request. */
function filterOf(request: Json): Record<string, unknown> | undefined {
  if (!isObject(request) || !Array.isArray(request.params)) return undefined;
  const filter: Json = request.method === 'eth_subscribe' ? request.params[1] : request.params[0];
  return isObject(filter) ? filter : undefined;
}

/** A filter's topics. */
function topicsOf(request: Json): unknown[] | undefined {
  const topics = filterOf(request)?.topics;
  return Array.isArray(topics) ? topics : undefined;
}

/** A filter's addresses, one or an array. */
function addressesOf(request: Json): unknown[] {
  const filter = filterOf(request);
  if (filter === undefined) return [];
  return Array.isArray(filter.address) ? filter.address : [filter.address];
}

interface Rule {
  name: string;
  /** the request (parsed), the relay's answer and this endpoint's, as JSON; the relay's HTTP status */
  kept(request: Json, relay: Json, ours: Json, relayStatus: number): boolean;
}

/** The rules of one request object (alone or as a batch item). */
const RULES: readonly Rule[] = [
  {
    // JSON-RPC 2.0: a request that is no object is -32600; the relay: -32700 (co-body) or its own
    name: 'not-an-object',
    kept: (request, _relay, ours) => !isObject(request) && !Array.isArray(request) && request !== undefined && errorOf(ours)?.code === -32600,
  },
  {
    name: 'method-not-a-string',
    kept: (request, _relay, ours) =>
      isObject(request) && 'method' in request && typeof request.method !== 'string' && errorOf(ours)?.code === -32600,
  },
  {
    // the relay drops the fifth topic and later silently
    name: 'topics-over-4',
    kept: (request, _relay, ours) => (topicsOf(request)?.length ?? 0) > 4 && /at most 4 topics/.test(errorOf(ours)?.message ?? ''),
  },
  {
    name: 'topic-values-over-limit',
    kept: (request, _relay, ours) => /Expected at most \d+ values in topic position/.test(errorOf(ours)?.message ?? '') && topicsOf(request) !== undefined,
  },
  {
    // the relay passes these to the mirror node, which refuses them: -32020
    name: 'relay-upstream-failure',
    kept: (_request, relay, ours) => errorOf(relay)?.code === -32020 && errorOf(ours) === undefined,
  },
  {
    name: 'relay-pagination-count',
    kept: (_request, relay, ours) => errorOf(relay)?.code === -32011 && Array.isArray((ours as ErrorBody | undefined)?.result),
  },
  {
    name: 'repeated-address',
    kept: (request, relay, ours) => {
      const a = addressesOf(request).map((x) => String(x).toLowerCase());
      return new Set(a).size < a.length && Array.isArray((relay as ErrorBody)?.result) && Array.isArray((ours as ErrorBody)?.result);
    },
  },
  {
    // the ws-server takes one address unless WS_MULTIPLE_ADDRESSES_ENABLED (false by default)
    name: 'several-subscribe-addresses',
    kept: (request, relay, ours) =>
      isObject(request) && request.method === 'eth_subscribe' && addressesOf(request).length > 1 &&
      /Only one contract address is allowed/.test(errorOf(relay)?.message ?? '') && typeof (ours as ErrorBody)?.result === 'string',
  },
  {
    // the relay's validator accepts 0X, then its ws-server looks the address up as typed and finds none
    name: 'subscribe-0X-address',
    kept: (request, relay, ours) =>
      isObject(request) && request.method === 'eth_subscribe' && addressesOf(request).some((a) => typeof a === 'string' && a.startsWith('0X')) &&
      /is not a valid contract/.test(errorOf(relay)?.message ?? '') && typeof (ours as ErrorBody)?.result === 'string',
  },
  {
    // the relay refuses its filter methods in a batch; answered here as alone
    name: 'filter-in-batch',
    kept: (_request, relay, ours) =>
      errorOf(relay)?.code === -32007 && /is not permitted as part of batch requests/.test(errorOf(relay)?.message ?? '') && errorOf(ours)?.code !== -32007,
  },
  {
    // in a batch the relay iterates `params` and fails on an object: -32603
    name: 'relay-params-not-iterable',
    kept: (_request, relay, ours) => /rpcParams is not iterable/.test(errorOf(relay)?.message ?? '') && errorOf(ours) === undefined,
  },
  {
    name: 'not-served-here',
    kept: (_request, _relay, ours) => /is not served here/.test(errorOf(ours)?.message ?? ''),
  },
];

/** The rules of a whole HTTP body, beyond its items'. */
const BODY_RULES: readonly Rule[] = [
  {
    // the relay answers [] with 200 []; JSON-RPC 2.0 says one -32600
    name: 'empty-batch',
    kept: (request, _relay, ours) => Array.isArray(request) && request.length === 0 && errorOf(ours)?.code === -32600,
  },
  {
    name: 'null-in-http-batch',
    kept: (request, _relay, ours, relayStatus) => Array.isArray(request) && request.includes(null) && relayStatus === 500 && Array.isArray(ours),
  },
];

function itemRule(request: Json, relay: Json, ours: Json, relayStatus: number): string | undefined {
  return RULES.find((r) => r.kept(request, relay, ours, relayStatus))?.name;
}

/**
 * The name of the kept difference between `relay` and `ours` for `request`, or undefined when the
 * difference is none of them. Over a WebSocket, a relay that does not answer at all (its ws-server
 * drops a method named in other case, a method that is no string, a batch holding one, ...) while
 * this endpoint answers is kept too. `earlier`: the kept differences of the case's earlier steps (an
 * unsubscribe answers true here and false on the relay after a subscription only this endpoint took).
 */
export function keptDifference(request: Json, relay: Reply, ours: Reply, ws: boolean, earlier: readonly string[] = []): string | undefined {
  const req = parsedRequest(request);
  if (ws && (relay.timedOut || relay.text === NO_REPLY) && ours.json !== undefined) return 'relay-ws-no-answer';
  if (
    (earlier.includes('several-subscribe-addresses') || earlier.includes('subscribe-0X-address')) && isObject(req) && req.method === 'eth_unsubscribe' &&
    (relay.json as ErrorBody)?.result === false && (ours.json as ErrorBody)?.result === true
  ) {
    return 'unsubscribe-of-a-kept-subscription';
  }
  if (relay.status === 0 || ours.status === 0) return undefined;
  const body = BODY_RULES.find((r) => r.kept(req, relay.json, ours.json, relay.status))?.name;
  if (body) return body;
  if (Array.isArray(req) && Array.isArray(relay.json) && Array.isArray(ours.json) && relay.json.length === ours.json.length) {
    // a batch: every item equal or kept (the answers in the order of its items, notifications left out:
    // a request with a method and no id; an object without a method is answered, as invalid)
    const items = req.filter((r) => !isObject(r) || r.id !== undefined || typeof r.method !== 'string');
    if (items.length !== ours.json.length) return undefined;
    const names = new Set<string>();
    for (const [i, item] of items.entries()) {
      const a = relay.json[i];
      const b = ours.json[i];
      if (JSON.stringify(a) === JSON.stringify(b)) continue;
      const name = itemRule(item, a, b, relay.status);
      if (!name) return undefined;
      names.add(name);
    }
    return names.size === 0 ? undefined : [...names].join('+');
  }
  return itemRule(req, relay.json, ours.json, relay.status);
}
