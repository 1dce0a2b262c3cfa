/**
 * GET /api/v1/contracts/{contractIdOrAddress}/results/{timestamp}: one call in full. The path may
 * name any entity involved in the transaction (the payer, the sender, a called contract).
 */
import type { Route } from '../../http/route.ts';
import { callPage } from './callPage.ts';
import { resolveContract } from '../common/resolve.ts';
import { parseCallByTimestampParams } from './params.ts';
import { callByTimestampSchema } from './schema.ts';

export const callByTimestampRoute: Route = {
  // Only a timestamp of digits and dots reaches this route (else 404), as in the reference.
  path: '/api/v1/contracts/:contractId/results/:timestamp(^[0-9.]+$)',
  pattern: '/api/v1/contracts/:contractId/results/:consensusTimestamp([0-9.]+)',
  cacheControl: 'public, max-age=600',
  schema: callByTimestampSchema,
  async handler({ config, db, query, params }) {
    const { contract, timestamp } = parseCallByTimestampParams(params.contractId!, params.timestamp!, query, config);
    const contractId = await resolveContract(db, contract);
    // a call that happened is history: settled at once
    return { ...(await callPage(db, timestamp, contractId, contractId)), settledAfter: 0n };
  },
};
