/** The documentation of GET /api/v1/contracts/{contractIdOrAddress}/results/logs. */
import { LOGS_FILTERING } from '../../http/docs/logsDescription.ts';
import { BAD_REQUEST, CONTRACT_ID_OR_ADDRESS, logFilters, NOT_FOUND, SERVICE_UNAVAILABLE, singleFilter, logsOk, BLOCK_NUMBER_RANGE, LAST_EVENT_ID, LOG_ADDRESS, TOO_MANY_STREAMS } from '../../http/docs/parameters.ts';
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
  querystring: { type: 'object', properties: { ...logFilters('The consensus timestamp of the logs.'), 'block.number': BLOCK_NUMBER_RANGE, lastEventId: LAST_EVENT_ID } },
  response: {
    200: logsOk('ContractLogsResponse'),
    400: BAD_REQUEST,
    404: NOT_FOUND,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};

/** The documentation of GET /api/v1/contracts/results/logs. */

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
      'block.number': BLOCK_NUMBER_RANGE,
      address: LOG_ADDRESS,
      lastEventId: LAST_EVENT_ID,
      'transaction.hash': singleFilter(
        ['eq'],
        '(0x)?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{96})',
        'A hex encoded 32-byte ethereum transaction hash or 48-byte hedera transaction hash: the logs of that transaction.',
      ),
    },
  },
  response: {
    200: logsOk('ContractLogsResponse'),
    400: BAD_REQUEST,
    429: TOO_MANY_STREAMS,
    503: SERVICE_UNAVAILABLE,
  },
};
