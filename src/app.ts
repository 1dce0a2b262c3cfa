import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import { actionsRoute } from './contracts/actions/actionsRoute.ts';
import { contractLookupRoute } from './contracts/contract/lookupRoute.ts';
import { contractLogsRoute } from './contracts/logs/contractRoute.ts';
import { contractListingRoute } from './contracts/contract/listingRoute.ts';
import { contractResultsRoute } from './contracts/results/contractRoute.ts';
import { networkLogsRoute } from './contracts/logs/networkRoute.ts';
import { networkResultsRoute } from './contracts/results/networkRoute.ts';
import { callByTimestampRoute } from './contracts/call/byTimestampRoute.ts';
import { stateRoute } from './contracts/state/stateRoute.ts';
import { callByTransactionRoute } from './contracts/call/byTransactionRoute.ts';
import type { Db } from './db/db.ts';
import { type Route } from './http/route.ts';
import { buildApp } from './http/server/server.ts';
import type { NetworkSource } from './http/server/networks.ts';
import { registerRpc } from './rpc/endpoint.ts';

/** Every endpoint of the service, in routing order. */
export const routes: Route[] = [
  contractLookupRoute,
  contractResultsRoute,
  contractLogsRoute,
  callByTimestampRoute,
  callByTransactionRoute,
  networkResultsRoute,
  networkLogsRoute,
  stateRoute,
  actionsRoute,
  contractListingRoute,
];

/**
 * The service's app; `clock` (ns since the epoch) replaces the system clock in tests. With `networks`
 * (config networks.*), each network's requests go to its own database (http/server/networks.ts).
 */
export function createApp(
  config: Config,
  db: Db,
  logger?: Logger | false,
  clock?: () => bigint,
  served: { networks?: NetworkSource[]; defaultNetwork?: string | undefined } = {},
): FastifyInstance {
  return buildApp({ config, db, routes, logger, ...(clock ? { clock } : {}), ...served, endpoints: [registerRpc] });
}
