/**
 * The API documentation: the OpenAPI 3.1 document that @fastify/swagger generates from the route
 * schemas (src/contracts/<route>/schema.ts) and the shared components (components.ts), served as
 * YAML and JSON, and Swagger UI (@fastify/swagger-ui, its files served from node_modules):
 *
 *   GET /api/v1/docs               Swagger UI
 *   GET /api/v1/docs/openapi.yml   the document as YAML (also .yaml, as the reference serves it)
 *   GET /api/v1/docs/openapi.json  the document as JSON
 *
 * Only tagged routes are documented: health, metrics and the docs themselves are not. The schemas
 * only document: the contract routes give them no-op compilers (see server.ts), so they never
 * validate a request or serialize an answer.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { VERSION } from '../../version.ts';
import { COMPONENTS } from './components.ts';
import type { JsonSchema } from './schema.ts';

export const DOCS_PATH = '/api/v1/docs';

/** The reference's names of the path parameters whose route pattern names them otherwise. */
const PARAMETER_NAMES: Readonly<Record<string, string>> = { contractId: 'contractIdOrAddress' };

const documentedName = (name: string): string => PARAMETER_NAMES[name] ?? name;

/** The OpenAPI path of a route pattern: `/a/:contractId/b/:timestamp(^[0-9.]+$)` -> `/a/{contractIdOrAddress}/b/{timestamp}`. */
export function openApiPath(routePattern: string): string {
  return routePattern.replace(/:(\w+)(\([^/]*\))?/g, (_match, name: string) => `{${documentedName(name)}}`);
}

/** The route schema with its path parameters named as in openApiPath. */
function withDocumentedNames(schema: JsonSchema | undefined): JsonSchema | undefined {
  const params = schema?.params as { properties?: Record<string, JsonSchema>; required?: string[] } | undefined;
  if (!schema || !params?.properties) return schema;
  const properties = Object.fromEntries(Object.entries(params.properties).map(([name, value]) => [documentedName(name), value]));
  return { ...schema, params: { ...params, properties, required: (params.required ?? []).map(documentedName) } };
}

/** Each operation's path parameters before its query parameters (as the reference lists them). */
function pathParametersFirst(paths: object): void {
  for (const item of Object.values(paths) as Array<Record<string, { parameters?: Array<{ in: string }> }>>) {
    for (const operation of Object.values(item)) {
      operation.parameters?.sort((a, b) => Number(b.in === 'path') - Number(a.in === 'path'));
    }
  }
}

const DESCRIPTION = `Read-only HTTP/JSON API for smart contracts on a Hedera/Hiero network: a drop-in for the contract routes of the mirror node REST API 0.129.1 (the same URLs, parameters, JSON and errors).

Query parameters are filters \`key=[operator:]value\`, the operator one of \`eq\` (the default), \`ne\`, \`lt\`, \`lte\`, \`gt\`, \`gte\`; a key may be repeated (up to query.maxRepeatedQueryParameters values). An unknown or invalid parameter is a 400 naming it. Listings are paged: \`links.next\` (also the \`Link\` header) is the next page, null on the last one.

OpenAPI document: [/api/v1/docs/openapi.yml](/api/v1/docs/openapi.yml) ([JSON](/api/v1/docs/openapi.json))`;

/** Registers the shared schemas, @fastify/swagger and Swagger UI, and the routes of the document. Call before the routes are added. */
/**
 * Registers the document and Swagger UI. `networks`: the networks served (several, by Host): the
 * document lists one server per network, on the operator's domain.
 */
export function registerDocs(app: FastifyInstance, networks: readonly string[] = []): void {
  for (const component of COMPONENTS) app.addSchema(component);
  const servers = networks.map((network) => ({
    url: `{scheme}://${network}.{domain}`,
    description: `the ${network} network: the first label of the Host names it`,
    variables: { scheme: { default: 'https', enum: ['https', 'http'] }, domain: { default: 'mirror.example' } },
  }));
  app.register(swagger, {
    openapi: {
      ...(servers.length > 0 ? { servers } : {}),
      openapi: '3.1.0',
      info: { title: 'contract-query-service', version: VERSION, description: DESCRIPTION, license: { name: 'Apache-2.0' } },
      tags: [{ name: 'contracts', description: 'The contracts objects represents the information associated with contract entities.' }],
    },
    hideUntagged: true,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url }) => ({ schema: withDocumentedNames(schema as JsonSchema | undefined) as typeof schema, url: openApiPath(url) }),
    transformObject: (document) => {
      // an OpenAPI (not a Swagger 2) document, as configured above
      const { openapiObject } = document as Extract<typeof document, { openapiObject: unknown }>;
      pathParametersFirst(openapiObject.paths ?? {});
      return openapiObject;
    },
  });
  app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    theme: { title: 'contract-query-service API' },
    // no top bar: its explorer would load any URL's document
    uiConfig: { layout: 'BaseLayout', docExpansion: 'list', deepLinking: true, displayRequestDuration: true },
  });

  let json: string | undefined;
  let yaml: string | undefined;
  const send = (reply: FastifyReply, type: string, body: string) => reply.type(type).send(body);
  app.get(`${DOCS_PATH}/openapi.json`, async (_request, reply) => {
    json ??= JSON.stringify(app.swagger());
    return send(reply, 'application/json; charset=utf-8', json);
  });
  for (const extension of ['yml', 'yaml']) {
    app.get(`${DOCS_PATH}/openapi.${extension}`, async (_request, reply) => {
      yaml ??= app.swagger({ yaml: true });
      return send(reply, 'text/yaml; charset=utf-8', yaml);
    });
  }
}
