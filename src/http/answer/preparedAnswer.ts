/**
 * Error answers (errorCatalog.ts) made once and written many times, where a request is refused
 * before routing (load shedding, the connection caps): the mirror's body, the answer's Retry-After,
 * CORS and Vary as on every answer, as headers for a response and as the whole raw HTTP text with
 * `Connection: close`.
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorAnswer } from './errorCatalog.ts';
import { JSON_TYPE } from './respond.ts';

export interface PreparedAnswer {
  status: number;
  body: Buffer;
  /** Header names and values, flat, for writeHead. */
  headers: string[];
  /** The same with Connection: close. */
  closing: string[];
  /** The whole answer as raw HTTP/1.1, with Connection: close. */
  rawClose: string;
}

/** `vary`: response.compression is on, so every JSON answer says Vary: Accept-Encoding. */
export function preparedAnswer(answer: ErrorAnswer, vary: boolean): PreparedAnswer {
  const { status, retryAfter } = answer;
  const body = Buffer.from(answer.body, 'utf8');
  const headers = [
    'Content-Type', JSON_TYPE,
    ...(retryAfter === undefined ? [] : ['Retry-After', String(retryAfter)]),
    'access-control-allow-origin', '*',
    ...(vary ? ['vary', 'Accept-Encoding'] : []),
    'Content-Length', String(body.length),
  ];
  const closing = [...headers, 'Connection', 'close'];
  // an answer that always closes its connection has no other form
  if (answer.close) headers.push('Connection', 'close');
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n`;
  for (let i = 0; i < closing.length; i += 2) head += `${closing[i]}: ${closing[i + 1]}\r\n`;
  return { status, body, headers, closing, rawClose: `${head}\r\n${body.toString('latin1')}` };
}
