/**
 * The JSON-RPC 2.0 endpoint for the logs read path (an addition): `POST /rpc` (http.ts) and a
 * WebSocket on the same path (ws.ts), answering eth_chainId, net_version, eth_blockNumber,
 * eth_getLogs, the filter API and eth_subscribe from the database, as the Hiero JSON-RPC relay
 * v0.69.3 answers them (docs/compatibility.md lists every difference kept).
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Networks } from '../http/server/networks.ts';
import { registerRpcHttp } from './http.ts';
import { RpcMetrics } from './metrics.ts';
import { RpcNetworks } from './networks.ts';
import { registerRpcWebSocket } from './ws.ts';

/** Registers the endpoint; its metrics' registry (metrics.ts), for /metrics. */
export function registerRpc(app: FastifyInstance, served: Networks): Registry | undefined {
  const networks = new RpcNetworks(served);
  if (networks.all.length === 0) return undefined;
  const metrics = new RpcMetrics();
  metrics.open.filters = () => networks.filterStores.reduce((sum, store) => sum + (store.size ?? 0), 0);
  registerRpcHttp(app, networks, metrics);
  registerRpcWebSocket(app, networks, metrics);
  app.addHook('onClose', () => networks.close());
  return metrics.registry;
}
