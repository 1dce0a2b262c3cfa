/**
 * What a request's Accept asks for, among the forms a route can answer: the reference's JSON page,
 * a whole listing as NDJSON, or a live event stream (the last two are additions). One negotiation
 * (RFC 9110 12.5.1, by the `negotiator` package: media types in any case, quality values honoured,
 * `q=0` refusing) serves routing, admission and the fast path alike.
 *
 * JSON is the answer unless the client prefers a stream the route has and names its type itself
 * (a wildcard such as `*\/*` or `text/*` never opens a stream): an Accept that names nothing the route
 * answers (or no Accept) gets JSON, as the reference answers whatever Accept says.
 */
import Negotiator from 'negotiator';

export const JSON_MEDIA_TYPE = 'application/json';
export const NDJSON_TYPE = 'application/x-ndjson';
export const EVENT_STREAM_TYPE = 'text/event-stream';

export type AnswerForm = 'json' | 'ndjson' | 'events';

/** What a route can answer besides JSON. */
export interface Streamable {
  /** A listing: also NDJSON. */
  listing?: unknown;
  /** Live events: also an event stream. */
  events?: unknown;
}

const FORM_OF: Record<string, AnswerForm> = { [JSON_MEDIA_TYPE]: 'json', [NDJSON_TYPE]: 'ndjson', [EVENT_STREAM_TYPE]: 'events' };

/** The offered types in the server's order of preference: JSON first, so that `*\/*` and ties answer JSON. */
const OFFERS = {
  none: [JSON_MEDIA_TYPE],
  listing: [JSON_MEDIA_TYPE, NDJSON_TYPE],
  events: [JSON_MEDIA_TYPE, EVENT_STREAM_TYPE],
  both: [JSON_MEDIA_TYPE, NDJSON_TYPE, EVENT_STREAM_TYPE],
};

/** The form of the answer to `accept` from a route that can answer `route` (every form when omitted). */
export function answerForm(accept: string | string[] | undefined, route: Streamable = { listing: true, events: true }): AnswerForm {
  if (accept === undefined || accept === '') return 'json';
  const listing = route.listing !== undefined;
  const events = route.events !== undefined;
  if (!listing && !events) return 'json';
  const offers = listing && events ? OFFERS.both : listing ? OFFERS.listing : OFFERS.events;
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  // a stream is named by its type: an Accept without either name answers JSON (the common case, cheaply)
  const lower = header.toLowerCase();
  if (!lower.includes('ndjson') && !lower.includes('event-stream')) return 'json';
  const negotiator = new Negotiator({ headers: { accept: header } });
  const [best] = negotiator.mediaTypes(offers);
  const form = (best !== undefined && FORM_OF[best]) || 'json';
  if (form === 'json') return form;
  // named by the client itself, not reached through a wildcard
  return negotiator.mediaTypes().some((type) => type.toLowerCase() === best) ? form : 'json';
}
