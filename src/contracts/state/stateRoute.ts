/** GET /api/v1/contracts/{contractIdOrAddress}/state: storage slots now, or as of a timestamp (eth_getStorageAt). */
import { refuseTimestampsBeyondInt64 } from '../../http/request/filters.ts';
import { listingPage, nextPageLink } from '../../http/request/listing.ts';
import type { Route } from '../../http/route.ts';
import { resolveContract } from '../common/resolve.ts';
import { parseStateRequest, stateParams } from './params.ts';
import { findCurrentState, findHistoricalState } from './query.ts';
import { stateView } from './view.ts';
import { stateSchema } from './schema.ts';

export const stateRoute: Route = {
  path: '/api/v1/contracts/:contractId/state',
  listing: 'state',
  cacheControl: 'public, max-age=1',
  schema: stateSchema,
  async handler(request) {
    const { config, db, params } = request;
    const { contract, filters } = parseStateRequest(params.contractId!, request.query, config);
    const contractId = await resolveContract(db, contract);
    const query = stateParams(contract, filters, config);
    refuseTimestampsBeyondInt64(filters);
    const { limit, order } = query.paging;
    if (query.slot.empty || query.timestamp?.empty) return listingPage('state', [], null);
    const base = { contractId, slot: query.slot, order, limit };
    const rows = query.timestamp ? await findHistoricalState(db, { ...base, timestamp: query.timestamp }) : await findCurrentState(db, base);
    const state = rows.map(stateView);
    const next = nextPageLink(request, query.paging, state.length, () => [['slot', { value: state[state.length - 1]!.slot!, inclusive: false }]]);
    return listingPage('state', state, next);
  },
};
