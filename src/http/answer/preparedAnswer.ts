/**
 * Error answers made once and written many times, where a request is refused before routing (load
 * shedding, the connection caps): the mirror's body, `Retry-After: 1`, CORS and Vary as on every
 * answer, as headers for a response and as the whole raw HTTP text with `Connection: close`.
 */
import { STATUS_CODES } from 'node:http';
import { errorBody } from '../request/errors.ts';
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
export function preparedAnswer(status: number, message: string, vary: boolean): PreparedAnswer {
  const body = Buffer.from(errorBody([message]), 'utf8');
  const headers = ['Content-Type', JSON_TYPE, 'Retry-After', '1', 'access-control-allow-origin', '*', ...(vary ? ['vary', 'Accept-Encoding'] : []), 'Content-Length', String(body.length)];
  const closing = [...headers, 'Connection', 'close'];
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n`;
  for (let i = 0; i < closing.length; i += 2) head += `${closing[i]}: ${closing[i + 1]}\r\n`;
  return { status, body, headers, closing, rawClose: `${head}\r\n${body.toString('latin1')}` };
}
