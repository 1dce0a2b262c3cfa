/**
 * eth_subscribe and eth_unsubscribe on a WebSocket, as the relay's ws-server answers them: `logs`
 * with an optional address (one or several; each a contract's, deleted or not, or by id a token's)
 * and topics, `newHeads`; any other event is an unsupported method. The same subscription asked
 * again on a connection gets its id again. Ids are 16 random bytes as 0x-hex; eth_unsubscribe
 * without one ends every subscription of the connection. A subscription made once its connection
 * is no longer open (the client went while the database answered) is stopped at once and never
 * counted: the connection's close has already counted out those it had. The limits are checked and
 * a place reserved in one turn, before any await, so that calls sent together cannot pass them.
 */
import type { RpcSettings } from '../config/rpc.ts';
import { type ContractRef, contractListingRef, parseContractPath } from '../http/request/contract.ts';
import { findEntityIdsByEvmAddress } from '../contracts/common/evmAddresses.ts';
import { resolveContracts } from '../contracts/common/resolve.ts';
import type { Db } from '../db/db.ts';
import { sql } from '../db/sql.ts';
import type { RpcId } from './dispatch.ts';
import { asRpcError } from './dispatch.ts';
import { answerError } from './envelope.ts';
import { RpcError, rpcErrors } from './errors.ts';
import { newFilterId } from './filterStore.ts';
import { topicsOf } from './logSearch.ts';
import type { MethodContext } from './methods.ts';
import { subscribeLogsParam } from './params.ts';
import type { WebSocket } from 'ws';
import { type Send, type Subscription, subscribeHeads, subscribeLogs } from './subscriptions.ts';

/** One WebSocket connection's state. */
export interface Connection {
  socket: WebSocket;
  subscriptions: Map<string, Subscription & { tag: string }>;
  /** eth_subscribe calls of the connection under way: counted against its limit before their first await. */
  reserved: number;
}

export interface SubscribeContext {
  context: MethodContext;
  connection: Connection;
  ws: RpcSettings['ws'];
  /** Subscriptions of the process. */
  counter: { get(): number; add(n: number): void };
  send: Send;
  requestId: string;
}

const result = (id: RpcId, value: unknown) => `{"result":${JSON.stringify(value)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

export async function subscribeRequest(request: { id: RpcId; method: string; params: unknown }, sub: SubscribeContext): Promise<string> {
  const { connection, counter, ws, requestId } = sub;
  const params = Array.isArray(request.params) ? request.params : [];
  if (request.method === 'eth_unsubscribe') {
    // as the ws-server: the id is `(params || [])[0]`; without one (any falsy value) every subscription
    // of the connection ends, and an id that is no string matches none
    const subId: unknown = request.params ? (Object(request.params) as Record<number, unknown>)[0] : undefined;
    const ending = !subId ? [...connection.subscriptions.values()] : typeof subId === 'string' ? [connection.subscriptions.get(subId)] : [];
    let ended = 0;
    for (const subscription of ending) {
      if (subscription === undefined) continue;
      subscription.stop();
      connection.subscriptions.delete(subscription.id);
      ended++;
    }
    counter.add(-ended);
    return result(request.id, ended > 0);
  }
  // the check and the count in one turn, before any await: calls that arrive together are counted as
  // they come (checked against the kept ones alone, 11 sent at once passed a limit of 10: issue 58)
  if (connection.subscriptions.size + connection.reserved >= ws.maxSubscriptionsPerConnection || counter.get() >= ws.maxSubscriptions) {
    return answerError(request.id, new RpcError(-32608, 'Exceeded maximum allowed subscriptions', 'relay'), requestId);
  }
  connection.reserved++;
  counter.add(1);
  let added = false;
  try {
    const made = await subscribe(params[0], params[1], sub);
    added = made.added;
    return result(request.id, made.id);
  } catch (err) {
    // the ws-server answers these errors itself, without the request id
    const error = asRpcError(err);
    return answerError(request.id, new RpcError(error.code, error.message, 'relay'), requestId);
  } finally {
    // the place reserved becomes the subscription's, or is given back (an error, the same one again, a closed connection)
    connection.reserved--;
    if (!added) counter.add(-1);
  }
}

/** The subscription's id, and whether it was added to the connection (not when the same one was there, or the connection closed). */
type Made = { id: string; added: boolean };

async function subscribe(event: unknown, filters: unknown, { context, connection, send, requestId }: SubscribeContext): Promise<Made> {
  const { db, config } = context;
  if (event !== 'logs' && event !== 'newHeads') throw rpcErrors.unsupportedMethod();
  let tag: string;
  if (event === 'logs') {
    if (filters === undefined || filters === null) throw rpcErrors.internal('"Cannot convert undefined or null to object"');
    const filter = subscribeLogsParam(filters, config.rpc);
    tag = JSON.stringify({ event, filters: filter });
    const existing = [...connection.subscriptions.values()].find((s) => s.tag === tag);
    if (existing) return { id: existing.id, added: false };
    let contracts: Set<string> | undefined;
    if (filter.address !== undefined) {
      contracts = new Set();
      for (const address of Array.isArray(filter.address) ? filter.address.flat() : [filter.address]) {
        const ref = contractListingRef(parseContractPath(address.toLowerCase()), config);
        const ids = ref.kind === 'id' ? await contractOrToken(db, ref.id) : await contractByEvmAddress(db, ref);
        if (ids.length === 0) {
          // the request id once (the ws-server writes it twice, "[Request ID: [Request ID: <id>]]", for it
          // passes the id already formatted: a difference kept on purpose, docs/compatibility.md)
          const error = rpcErrors.invalidParameter('filters.address', `${address} is not a valid contract or token type or does not exists`);
          throw new RpcError(error.code, `[Request ID: ${requestId}] ${error.message}`, 'relay');
        }
        for (const id of ids) contracts.add(id.toString());
      }
    }
    const id = newFilterId();
    const subscription = await subscribeLogs(db, config, id, { contracts, topics: topicsOf(filter.topics) }, send);
    return kept(connection, { ...subscription, tag });
  }
  tag = JSON.stringify({ event });
  const existing = [...connection.subscriptions.values()].find((s) => s.tag === tag);
  if (existing) return { id: existing.id, added: false };
  const id = newFilterId();
  const subscription = await subscribeHeads(db, config, id, send);
  return kept(connection, { ...subscription, tag });
}

/**
 * A long-zero address as the ws-server checks it (the mirror node's /contracts/{address}, then
 * /tokens/{id}): the id of a contract, deleted or not, or of a token; else none.
 */
async function contractOrToken(db: Db, id: bigint): Promise<bigint[]> {
  const found = await db.query<{ id: string }>(sql`select id from entity where id = ${id.toString()} and type in ('CONTRACT', 'TOKEN')`);
  return found.length === 0 ? [] : [id];
}

/**
 * An EVM address as the ws-server checks it (the mirror node's /contracts/{address}): a live
 * contract's id, else a deleted contract's (its logs are over, but the relay subscribes to it).
 */
async function contractByEvmAddress(db: Db, ref: Extract<ContractRef, { kind: 'evm' }>): Promise<bigint[]> {
  const live = await resolveContracts(db, [ref]);
  if (live.length > 0) return live;
  return findEntityIdsByEvmAddress(db, { hex: ref.hex, shard: ref.shard, realm: ref.realm, contractsOnly: true, deletedToo: true });
}

/** The subscription, kept while its connection is open (its place was counted: subscribeRequest), else stopped. */
function kept(connection: Connection, subscription: Subscription & { tag: string }): Made {
  if (connection.socket.readyState !== connection.socket.OPEN) {
    subscription.stop();
    return { id: subscription.id, added: false };
  }
  connection.subscriptions.set(subscription.id, subscription);
  return { id: subscription.id, added: true };
}
