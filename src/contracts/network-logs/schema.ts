/** The documentation of GET /api/v1/contracts/results/logs. */
import { LOGS_FILTERING } from '../../http/docs/logsDescription.ts';
import { BAD_REQUEST, SERVICE_UNAVAILABLE, logFilters, ok, singleFilter } from '../../http/docs/parameters.ts';
import type { RouteSchema } from '../../http/docs/schema.ts';

export const networkLogsSchema: RouteSchema = {
  operationId: 'getContractsLogs',
  summary: 'List contracts logs across many contracts on the network',
  description:
    'Search the logs across many contracts with multiple contract calls (the logs of `eth_getLogs`), by timestamp range and topics, ' +
    'or by transaction hash. Chained logs are not included but can be found by calling ' +
    '`/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}` or `/api/v1/contracts/results/{transactionIdOrHash}`.\n' +
    LOGS_FILTERING,
  tags: ['contracts'],
  querystring: {
    type: 'object',
    properties: {
      ...logFilters(
        'The consensus timestamp of the logs. With query.bindTimestampRange, an open range is bound to query.maxTransactionsTimestampRange.',
      ),
      'transaction.hash': singleFilter(
        ['eq'],
        '(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})',
        'A hex encoded 32-byte ethereum transaction hash or 48-byte hedera transaction hash: the logs of that transaction.',
      ),
    },
  },
  response: {
    200: ok('ContractLogsResponse'),
    400: BAD_REQUEST,
    503: SERVICE_UNAVAILABLE,
  },
};
