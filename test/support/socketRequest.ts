/**
 * One request over a connection of its own (Node's HTTP client, no agent): what arrives on the
 * wire, headers in their order and case included. For the paths app.inject never takes, such as the
 * cache hits sent before routing (src/http/server/cacheHits.ts).
 */
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';

export interface SocketResponse {
  statusCode: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  /** Names and values as sent, alternating. */
  rawHeaders: string[];
  body: Buffer;
}

/**
 * The response to `method path` on 127.0.0.1:`port`; undefined for a path Node's client will not
 * send as it is (characters a request line may not hold).
 */
export function requestOverSocket(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<SocketResponse | undefined> {
  return new Promise((resolve, reject) => {
    let request;
    try {
      request = httpRequest({ host: '127.0.0.1', port, path, method, agent: false, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            statusCode: response.statusCode!,
            statusMessage: response.statusMessage!,
            headers: response.headers,
            rawHeaders: response.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      });
    } catch {
      resolve(undefined);
      return;
    }
    request.on('error', reject);
    request.end();
  });
}
