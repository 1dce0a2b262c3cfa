/**
 * Vary as the reference's `compression` middleware sends it: `Accept-Encoding` once, appended to
 * what is there, on every answer whose type it could compress, compressed or not (HEAD included);
 * none on answers without a content type (304, the CORS preflight) and none at all without
 * `response.compression`. @fastify/compress adds a lower-case `accept-encoding` of its own when it
 * compresses; this stage runs after it (a route `onSend` appended after compress's) and leaves one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { routeFlags } from '../routeFlags.ts';

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|xml|x-ndjson|[\w.+-]+\+(?:json|xml)))/i;

/** `current` with Accept-Encoding appended unless present (any case): the `vary` module's rule. */
export function withAcceptEncoding(current: string | string[] | number | undefined): string {
  if (current === undefined || current === 'accept-encoding') return 'Accept-Encoding';
  const fields = (Array.isArray(current) ? current.join(',') : current === undefined ? '' : String(current))
    .split(',')
    .map((field) => field.trim())
    .filter((field) => field !== '');
  if (fields.includes('*')) return '*';
  const others = fields.filter((field) => field.toLowerCase() !== 'accept-encoding');
  const had = others.length !== fields.length;
  // the reference appends Accept-Encoding after the fields already there, once
  const index = had ? fields.findIndex((field) => field.toLowerCase() === 'accept-encoding') : others.length;
  others.splice(index, 0, 'Accept-Encoding');
  return others.join(', ');
}

function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && COMPRESSIBLE.test(type) && !routeFlags(request).probe) {
    reply.header('vary', withAcceptEncoding(reply.getHeader('vary')));
  }
  done(null, payload);
}

/**
 * Registers the stage; call right after registering @fastify/compress, and only when compression
 * is on. Requests that matched no route (404, undecodable paths) get it as an app hook: no route
 * hooks run for them.
 */
export function registerVary(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.url === undefined) return onSend(request, reply, payload, done);
    done(null, payload);
  });
  const plugin = async (instance: FastifyInstance) => {
    instance.addHook('onRoute', (route: RouteOptions) => {
      const hooks = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
      route.onSend = [...hooks, onSend as never];
    });
  };
  // skip-override: the hook applies to the whole app (as fastify-plugin does), after compress's own
  app.register(Object.assign(plugin, { [Symbol.for('skip-override')]: true }));
}
