/** GET /api/v1/contracts/results/{transactionIdOrHash}/actions: the call trace of a transaction (debug_traceTransaction). */
import { notFound } from '../../http/request/errors.ts';
import { listingPage, nextPageLink } from '../../http/request/listing.ts';
import type { Route } from '../../http/route.ts';
import { indexRange, parseActionsRequest } from './params.ts';
import { findActions, findOwnerByHash, findOwnerById } from './query.ts';
import { actionView } from './view.ts';
import { actionsSchema } from './schema.ts';
import { latestConsensusNs } from '../common/transactionPath.ts';

export const actionsRoute: Route = {
  path: '/api/v1/contracts/results/:transactionIdOrHash/actions',
  listing: 'actions',
  cacheControl: 'public, max-age=600',
  schema: actionsSchema,
  async handler(request) {
    const { config, db, params } = request;
    const { transaction, indexFilters, paging } = parseActionsRequest(params.transactionIdOrHash!, request.query, config);
    let owner;
    if (transaction.kind === 'hash') {
      owner = await findOwnerByHash(db, transaction.hash);
    } else {
      // (a valid start beyond the int64 range can match no transaction: 404, not the overflow's 503)
      const latestNs = latestConsensusNs(transaction.validStartNs, config);
      if (latestNs !== undefined) owner = await findOwnerById(db, transaction.payer, transaction.validStartNs, latestNs);
      // the actions were paid by the id's account
      if (owner) owner = { ...owner, payer_account_id: transaction.payer.toString() };
    }
    if (owner === undefined) throw notFound();
    const index = indexRange(indexFilters);
    if (index.empty) return listingPage('actions', [], null);
    const rows = await findActions(db, owner, index, paging.order, paging.limit);
    const actions = rows.map(actionView);
    const next = nextPageLink(request, paging, actions.length, () => [['index', { value: String(actions[actions.length - 1]!.index), inclusive: false }]]);
    return listingPage('actions', actions, next);
  },
};
