/**
 * `POST /rpc`: JSON-RPC 2.0 over HTTP, single requests and batches, answered as the relay's server
 * answers them: `{"result"|"error", "jsonrpc", "id"}` in that key order; a single request's error
 * with HTTP 400 (500 for an internal error), a parse error with 200, a batch with 200 and its
 * answers in request order. The logs of eth_getLogs are written while they are read (logPages.ts),
 * so an answer never sits whole in memory; a failure after the first page cuts the connection.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { leaveAdmission } from '../http/server/load/admission.ts';
import { answerError, batchChunks, deferredChunks, outcomeChunks } from './envelope.ts';
import { TOO_LARGE, parseJson, readBody } from './body.ts';
import { RpcError, rpcErrors } from './errors.ts';
import { type Measure, dispatch } from './dispatch.ts';
import type { RpcMetrics } from './metrics.ts';
import type { RpcNetworks } from './networks.ts';
import { RPC_SCHEMA } from './schema.ts';

const JSON_TYPES = /^(?:application\/(?:json|json-rpc|jsonrequest)|text\/plain)$/i;
const CONTENT_TYPE = 'application/json; charset=utf-8';

/** The relay's HTTP status of a single request's error. */
const statusOf = (error: RpcError): number => (error.code === -32603 ? 500 : error.code === -32700 ? 200 : 400);

function sendError(reply: FastifyReply, requestId: string, error: RpcError, status = statusOf(error)) {
  return reply.code(status).header('content-type', CONTENT_TYPE).send(answerError(null, error, requestId));
}

export function registerRpcHttp(app: FastifyInstance, networks: RpcNetworks, metrics: RpcMetrics): void {
  const measure: Measure = (method) => metrics.start('http', method);
  /** A body answered before any request was read from it (counted under method "none"). */
  const refuse = (reply: FastifyReply, requestId: string, error: RpcError, status = statusOf(error)) => {
    metrics.observe('http', 'none', error.code, reply.elapsedTime / 1000);
    return sendError(reply, requestId, error, status);
  };
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // every body is read here, whatever its type, with the endpoint's own limit
    scope.addContentTypeParser('*', (request, payload, done) => {
      const limit = networks.of(request.raw)?.config.rpc.maxBodyBytes ?? 1_048_576;
      const declared = Number(request.headers['content-length']);
      if (declared > limit) return done(null, TOO_LARGE);
      readBody(payload, limit).then((body) => done(null, body), done);
    });
    // the schema documents (OpenAPI) and checks nothing: the body is read above and checked below
    const documentationOnly = { schema: RPC_SCHEMA, validatorCompiler: () => () => true, serializerCompiler: () => (data: unknown) => JSON.stringify(data) };
    scope.post('/rpc', documentationOnly, async (request: FastifyRequest, reply: FastifyReply) => {
      const requestId = String(request.id);
      reply.header('x-request-id', requestId);
      const network = networks.of(request.raw);
      if (network === undefined) return refuse(reply, requestId, new RpcError(-32600, 'Invalid Request: the host names no network served here', 'server'), 404);
      const { rpc } = network.config;
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (type !== '' && !JSON_TYPES.test(type)) {
        return refuse(reply, requestId, new RpcError(-32600, `Invalid Request: Content-Type ${type} is not JSON; send application/json`, 'server'), 415);
      }
      const body = request.body as Buffer | typeof TOO_LARGE | undefined;
      if (body === TOO_LARGE) {
        reply.header('connection', 'close');
        return refuse(reply, requestId, new RpcError(-32600, `Invalid Request: the body is over ${rpc.maxBodyBytes} bytes`, 'server'), 413);
      }
      let parsed: unknown;
      try {
        parsed = parseJson(body ?? '', rpc.maxJsonDepth, rpc.maxBatchSize);
      } catch (err) {
        return refuse(reply, requestId, err as RpcError);
      }
      // JSON that is neither a request nor a batch (`42`, `null`), or an empty batch: one Invalid
      // Request, as JSON-RPC 2.0 answers them (the relay: a parse error, and `[]`: docs/compatibility.md)
      if (typeof parsed !== 'object' || parsed === null || (Array.isArray(parsed) && parsed.length === 0)) {
        return refuse(reply, requestId, rpcErrors.invalidRequest());
      }
      const context = networks.context(network, request.ip);
      if (!Array.isArray(parsed)) {
        const outcome = await dispatch(parsed, context, measure);
        const status = 'error' in outcome ? statusOf(outcome.error) : 200;
        const chunks = await outcomeChunks(outcome, requestId);
        // an answer of several pages leaves the limit of requests in flight: the page gate paces its reads
        if (typeof chunks !== 'string' && !Buffer.isBuffer(chunks)) leaveAdmission(request.raw);
        return reply
          .code(status)
          .header('content-type', CONTENT_TYPE)
          .send(typeof chunks === 'string' || Buffer.isBuffer(chunks) ? chunks : Readable.from(chunks, { objectMode: false }));
      }
      const outcomes = await Promise.all(parsed.map((item) => dispatch(item, context, measure)));
      const answers = outcomes.map((outcome) => deferredChunks(outcome, requestId));
      // (a batch's answers are read as they are written: a stream)
      leaveAdmission(request.raw);
      return reply.code(200).header('content-type', CONTENT_TYPE).send(Readable.from(batchChunks(answers), { objectMode: false }));
    });
    // the relay answers any other HTTP method with Invalid Request (a WebSocket upgrade never gets here)
    scope.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url: '/rpc',
      handler: async (request, reply) => refuse(reply, String(request.id), rpcErrors.invalidRequest(), 400),
    });
  });
}
