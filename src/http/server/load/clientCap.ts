/**
 * server.maxConnectionsPerClient behind a proxy that server.trustProxy trusts: every connection
 * comes from the proxy, and one connection carries the requests of many clients in turn, so the
 * cap counts each forwarded client's requests in flight instead (the first X-Forwarded-For value,
 * from its headers until its answer ends, a stream's included). One more is answered 429 at once,
 * on the proxy's connection kept open: closing it would fail the other clients' requests behind it.
 * A request without X-Forwarded-For is the proxy's own and is not counted; the probes and metrics
 * never are. (Without trustProxy the cap counts connections per peer address: connectionCap.ts.)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedClient } from './clientAddress.ts';
import { Counts } from './counts.ts';
import { isOperational } from './operational.ts';
import type { Refusals } from './refusals.ts';

export interface ClientCap {
  /** Before routing: true when it answered the request (refused). */
  beforeRouting(request: IncomingMessage, response: ServerResponse): boolean;
  /** Requests in flight of one forwarded client. */
  of(client: string): number;
}

export function capForwardedClients(perClient: number, refusals: Refusals): ClientCap {
  const inFlight = new Counts();
  return {
    of: (client) => inFlight.of(client),
    beforeRouting(request, response) {
      const client = forwardedClient(request);
      if (client === undefined || isOperational(request)) return false;
      if (inFlight.of(client) >= perClient) {
        refusals.count('client');
        refusals.send('client', response, false);
        return true;
      }
      inFlight.add(client);
      response.once('close', () => inFlight.remove(client));
      return false;
    },
  };
}
