/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}/results/logs. */
import { LOGS_FILTERING } from '../../http/docs/logsDescription.ts';
import { BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, NOT_FOUND, SERVICE_UNAVAILABLE, logFilters, ok } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const contractLogsSchema: RouteSchema = {
  operationId: 'getContractLogsByContractId',
  summary: 'List contract logs from a contract on the network',
  description:
    'Search the logs of a specific contract across multiple contract calls. Chained logs are not included but can be found by ' +
    'calling `/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}` or `/api/v1/contracts/results/{transactionIdOrHash}`.\n' +
    LOGS_FILTERING,
  tags: ['contracts'],
  params: { type: 'object', required: ['contractId'], properties: { contractId: CONTRACT_ID_OR_ADDRESS } },
  querystring: { type: 'object', properties: logFilters('The consensus timestamp of the logs.') },
  response: {
    200: ok('ContractLogsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    503: SERVICE_UNAVAILABLE,
  },
};
