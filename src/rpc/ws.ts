/**
 * The WebSocket on /rpc (the relay's ws-server): JSON-RPC messages, single or batch, the relay's
 * WebSocket methods (others: Method not found), eth_subscribe / eth_unsubscribe. Hostile clients are
 * bounded: connections per process and per client address (refused on the upgrade), message size
 * (closed 1009), messages answered at once per connection (rpc.ws.maxInFlight: beyond, the
 * connection is not read), subscriptions per connection (-32608) and per process, answers written as
 * they are read and only as fast as the client takes them (wsWriter.ts: a client that stops reading
 * is closed after server.stallTimeout, or at once past rpc.ws.maxBufferedBytes of notifications),
 * and connections idle past rpc.ws.maxInactivity.
 *
 * On the upgrade: a Host missing (RFC 6455 asks for one) or no `hostname[:port]` is refused 400
 * (as every HTTP request is: server/hostCheck.ts), one naming no network served here 404. A
 * client's address is the peer's, or with server.trustProxy the first X-Forwarded-For value
 * (Fastify's request.ip, as the stream limits count it). A connection is counted (per process, per
 * client) only once its handshake succeeds, so that handshakes ws refuses (a bad Sec-WebSocket-Key
 * or -Version: 400) leave nothing counted; and it leaves server.maxConnections' count
 * (connectionCap.ts), as event streams do: it has rpc.ws.maxConnections of its own, and must not
 * take the places of requests for pages. The client's x-request-id prefixes the request ids only
 * when it is a short token (as over HTTP: accessLog.ts); else a new UUID does.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type WebSocket, WebSocketServer } from 'ws';
import { hostMessage } from '../http/server/hostCheck.ts';
import { releaseConnection } from '../http/server/load/connectionCap.ts';
import { clientOf } from '../http/server/load/clientAddress.ts';
import { Counts } from '../http/server/load/counts.ts';
import { tookBytes } from '../http/server/load/stallWatch.ts';
import { requestId as requestIdFrom } from '../http/server/plugins/accessLog.ts';
import { parseJson } from './body.ts';
import { type Measure, type RpcId, dispatch, requestIdOf } from './dispatch.ts';
import type { RpcMetrics } from './metrics.ts';
import { type Chunk, answerError, batchChunks, deferredChunks, single } from './envelope.ts';
import { RpcError, rpcErrors } from './errors.ts';
import type { RpcNetworks } from './networks.ts';
import { type Connection, subscribeRequest } from './wsSubscribe.ts';
import { isClientGone, wsWriter } from './wsWriter.ts';

/** The methods the relay's WebSocket serves (its WS_CONSTANTS.METHODS); the rest are not found there. */
const WS_METHODS = new Set(
  'eth_call eth_chainId eth_getLogs eth_getCode eth_gasPrice eth_subscribe eth_newFilter eth_getBalance eth_unsubscribe eth_blockNumber eth_estimateGas eth_getStorageAt eth_getBlockByHash eth_getBlockByNumber eth_sendRawTransaction eth_getTransactionCount eth_getTransactionByHash eth_getTransactionReceipt eth_maxPriorityFeePerGas web3_clientVersion web3_sha3'.split(
    ' ',
  ),
);

function refuse(socket: Duplex, status: number, text: string) {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

export function registerRpcWebSocket(app: FastifyInstance, networks: RpcNetworks, metrics: RpcMetrics): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: Math.max(...networks.all.map((n) => n.config.rpc.maxBodyBytes), 1024) });
  const perClient = new Counts();
  let open = 0;
  let subscriptions = 0;
  const counter = { get: () => subscriptions, add: (n: number) => (subscriptions += n) };
  metrics.open.connections = () => open;
  metrics.open.subscriptions = () => subscriptions;
  const measure: Measure = (method) => metrics.start('ws', method);
  /** A message answered before any request was read from it (counted under method "none"). */
  const refused = (code: number) => metrics.observe('ws', 'none', code, 0);
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0]!.replace(/\/$/, '');
    if (!request.headers.host || hostMessage(request) !== undefined) return refuse(socket, 400, 'Bad Request');
    const network = networks.of(request);
    if (path.toLowerCase() !== '/rpc' || network === undefined) return refuse(socket, 404, 'Not Found');
    const { ws } = network.config.rpc;
    const client = clientOf(request, network.config.server.trustProxy);
    if (ws.maxConnections > 0 && open >= ws.maxConnections) return refuse(socket, 503, 'Service Unavailable');
    if (ws.maxConnectionsPerClient > 0 && perClient.of(client) >= ws.maxConnectionsPerClient) return refuse(socket, 429, 'Too Many Requests');
    // (the callback runs at once, in this turn, when the handshake succeeds: nothing is admitted between the checks and the count)
    wss.handleUpgrade(request, socket, head, (socket) => {
      open++;
      perClient.add(client);
      releaseConnection(request.socket as Socket);
      const requestIdPrefix = requestIdFrom(request.headers['x-request-id']);
      const connection: Connection = { socket, subscriptions: new Map(), reserved: 0 };
      const context = networks.context(network, client);
      let requests = 0;
      let idle: NodeJS.Timeout | undefined;
      const touch = () => {
        if (ws.maxInactivityMs === 0) return;
        clearTimeout(idle);
        idle = setTimeout(() => socket.close(1000, 'Connection timeout expired'), ws.maxInactivityMs).unref();
      };
      touch();
      const writer = wsWriter(
        socket,
        ws.maxBufferedBytes,
        (err) =>
          isClientGone(err)
            ? app.log.info({ client, code: (err as { code?: unknown }).code }, 'rpc websocket client went away during an answer')
            : app.log.error({ err }, 'rpc websocket answer failed'),
        () => tookBytes(request.socket as Socket),
      );
      const answerOne = async (item: unknown): Promise<AsyncGenerator<Chunk>> => {
        const requestId = `${requestIdPrefix}-${++requests}`;
        const method = typeof item === 'object' && item !== null ? (item as { method?: unknown }).method : undefined;
        if (typeof method === 'string' && !WS_METHODS.has(method) && isRequest(item)) {
          measure(method)(-32601);
          const id = requestIdOf(item);
          return single(answerError(id || null, new RpcError(-32601, `Method ${method} not found`, 'server'), requestId));
        }
        if ((method === 'eth_subscribe' || method === 'eth_unsubscribe') && isRequest(item)) {
          const done = measure(method);
          const text = await subscribeRequest(item as { id: RpcId; method: string; params: unknown }, { context, connection, ws, counter, send: writer.message, requestId });
          done(Number(/^\{"error":\{"code":(-?\d+)/.exec(text)?.[1] ?? NaN) || 'ok');
          return single(text);
        }
        return deferredChunks(await dispatch(item, context, measure), requestId);
      };
      const answerMessage = async (data: Buffer): Promise<void> => {
        let message: unknown;
        try {
          message = parseJson(data, network.config.rpc.maxJsonDepth, ws.maxBatchSize);
        } catch (err) {
          // a batch over its limit (counted before it was parsed): the relay's answer, in an array
          if (err instanceof RpcError && err.code === -32203) {
            refused(-32203);
            return writer.answer(single(`[${answerError(null, err, '')}]`));
          }
          refused(-32600);
          return writer.answer(single(JSON.stringify({ code: -32600, message: 'Invalid request' })));
        }
        if (!Array.isArray(message)) return writer.answer(await answerOne(message));
        // an empty batch: one Invalid Request, as JSON-RPC 2.0 answers it (as over HTTP)
        if (message.length === 0) {
          refused(-32600);
          return writer.answer(single(answerError(null, rpcErrors.invalidRequest(), '')));
        }
        const answers = await Promise.all(message.map((item) => answerOne(item)));
        return writer.answer(batchChunks(answers));
      };
      // at most rpc.ws.maxInFlight messages answered at once; while that many wait, the connection is
      // not read (TCP holds the client back), so a client that sends without end queues nothing here
      const waiting: Buffer[] = [];
      let answering = 0;
      const pump = () => {
        while (answering < ws.maxInFlight && waiting.length > 0 && socket.readyState === socket.OPEN) {
          answering++;
          void answerMessage(waiting.shift()!)
            .catch((err) => app.log.error({ err }, 'rpc websocket message failed'))
            .finally(() => {
              answering--;
              if (socket.isPaused && waiting.length < ws.maxInFlight) socket.resume();
              // the next one after the event loop's I/O: where statements resolve without I/O (the
              // embedded database), answering one after another would starve every other client
              setImmediate(pump);
            });
        }
      };
      socket.on('message', (data: Buffer) => {
        touch();
        waiting.push(data);
        if (waiting.length >= ws.maxInFlight && !socket.isPaused) socket.pause();
        pump();
      });
      socket.on('error', () => socket.terminate());
      socket.once('close', () => {
        clearTimeout(idle);
        for (const subscription of connection.subscriptions.values()) subscription.stop();
        subscriptions -= connection.subscriptions.size;
        connection.subscriptions.clear();
        open--;
        perClient.remove(client);
      });
    });
  });
  app.addHook('preClose', async () => {
    for (const client of wss.clients) client.close(1001, 'Server shutting down');
    wss.close();
  });
}

const isRequest = (item: unknown): boolean =>
  typeof item === 'object' && item !== null && (item as { jsonrpc?: unknown }).jsonrpc === '2.0' && 'id' in item;
