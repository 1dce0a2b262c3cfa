/**
 * The answers of a connection or request refused by a cap on connections (connectionCap.ts,
 * clientCap.ts): the shed 503 when the process is full (`capacity`, httpErrors.unavailable), 429
 * when the client's own cap is what it passed (`client`, httpErrors.tooManyConnections); both with
 * `Retry-After: 1`, as raw HTTP for a connection that never reaches the parser and as headers for a
 * response. Each is counted with the shed requests
 * (`http_requests_shed_total`, reasons `connections` and `client`).
 */
import type { ServerResponse } from 'node:http';
import { type PreparedAnswer, preparedAnswer } from '../../answer/preparedAnswer.ts';
import { httpErrors } from '../../answer/errorCatalog.ts';
import { type ShedReason, shedAnswer } from './admission.ts';

export type CapPassed = 'capacity' | 'client';

export interface Refusals {
  count(passed: CapPassed): void;
  /** The whole HTTP answer, with Connection: close. */
  raw(passed: CapPassed): string;
  /** Sends the answer on a response; `close`: with Connection: close (the default). */
  send(passed: CapPassed, response: ServerResponse, close?: boolean): void;
}

export function refusals(perClient: number, vary: boolean, count: (reason: ShedReason) => void): Refusals {
  const answers: Record<CapPassed, PreparedAnswer> = {
    capacity: shedAnswer(vary),
    client: preparedAnswer(httpErrors.tooManyConnections(perClient), vary),
  };
  return {
    count: (passed) => count(passed === 'capacity' ? 'connections' : 'client'),
    raw: (passed) => answers[passed].rawClose,
    send(passed, response, close = true) {
      const { status, headers, closing, body } = answers[passed];
      response.writeHead(status, close ? closing : headers);
      response.end(body);
    },
  };
}
