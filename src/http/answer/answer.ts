/**
 * A route's successful answer as it leaves the handler and as the response cache keeps it: status,
 * the JSON body before any content-encoding, its ETag, and the headers the route set (cache-control,
 * link). Everything else a response carries is derived from these on the way out (respond.ts),
 * exactly as for a fresh answer.
 */
import { hash } from 'node:crypto';
import { Encoded, JsonText, toJson } from '../../format/json.ts';
import type { Page } from '../route.ts';

export interface Answer {
  status: 200 | 206;
  body: Buffer;
  etag: string;
  cacheControl: string;
  link?: string;
  /** The Indexed-Through header (an addition, http/cache/settledCompute.ts): the newest block the answer's data had. */
  indexedThrough?: string;
}

/** An answer just computed, with what its route knows of when it is settled (Page.settledAfter). */
export interface ComputedAnswer extends Answer {
  settledAfter?: bigint;
}

/** Express-compatible weak ETag: W/"<byte length hex>-<first 27 chars of base64 sha1>". */
export function weakEtag(body: Buffer): string {
  if (body.length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return `W/"${body.length.toString(16)}-${hash('sha1', body, 'base64').slice(0, 27)}"`;
}

/** A handler's page as an answer: the body encoded once (the same bytes are hashed for the ETag and sent). */
export function answerOf(page: Page, cacheControl: string): ComputedAnswer {
  const { body: value } = page;
  const body = value instanceof Encoded ? value.bytes() : Buffer.from(value instanceof JsonText ? value.text : toJson(value), 'utf8');
  const answer: ComputedAnswer = { status: page.status ?? 200, body, etag: weakEtag(body), cacheControl };
  if (page.next) answer.link = `<${page.next}>; rel="next"`;
  if (page.settledAfter !== undefined) answer.settledAfter = page.settledAfter;
  return answer;
}

/** What an entry costs the in-process tier: its body and a rough allowance for the rest. */
export const answerBytes = (answer: Answer): number =>
  answer.body.length + answer.etag.length + answer.cacheControl.length + (answer.link?.length ?? 0) + (answer.indexedThrough?.length ?? 0) + 200;
