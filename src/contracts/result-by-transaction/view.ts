/** The answer of GET /api/v1/contracts/results/{transactionIdOrHash}: the detailed result object with logs and state changes. */
export { detailedResult } from '../shared/detailedResult.ts';
