/**
 * GET /api/v1/contracts: the network's current contracts, by id, newest first by default.
 * Checks run in the reference's order: query validation, then each `contract.id` converted and
 * (an opaque address) looked up in query order, then the query.
 */
import { INT64, emptyRange, narrow } from '../../db/range.ts';
import { listingPage, nextPageLink } from '../../http/request/listing.ts';
import type { Route } from '../../http/route.ts';
import { resolveContract } from '../common/resolve.ts';
import { contractRef, parseContractsParams } from './params.ts';
import { findContracts } from './query.ts';
import { contractSummary } from './view.ts';
import { contractListingSchema } from './schema.ts';

export const contractListingRoute: Route = {
  path: '/api/v1/contracts',
  listing: 'contracts',
  cacheControl: 'public, max-age=10',
  schema: contractListingSchema,
  async handler(request) {
    const { config, db } = request;
    const { contractIds, paging } = parseContractsParams(request.query, config);
    let ids = emptyRange<bigint>();
    for (const { operator, value } of contractIds) {
      ids = narrow(ids, operator, await resolveContract(db, contractRef(value, config)), INT64);
    }
    const contracts = ids.empty ? [] : (await findContracts(db, { ids, ...paging })).map(contractSummary);
    const next = nextPageLink(request, paging, contracts.length, () => [
      ['contract.id', { value: contracts[contracts.length - 1]!.contract_id!, inclusive: false }],
    ]);
    return listingPage('contracts', contracts, next);
  },
};
