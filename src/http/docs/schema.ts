/**
 * The types of the documentation schemas: plain JSON Schema objects (the keywords draft-07 and
 * 2020-12 share, so that any JSON Schema tool reads them), and a route's schema as Fastify takes it.
 */

/** A JSON Schema object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** What a route's schema documents: its operation, path and query parameters, and answers by status. */
export interface RouteSchema {
  operationId: string;
  summary: string;
  description: string;
  tags: readonly string[];
  /** Path parameters, named as the route's path names them. */
  params?: JsonSchema;
  querystring?: JsonSchema;
  response: Readonly<Record<number, JsonSchema>>;
}

/** A reference to a shared component schema (src/http/docs/components.ts) by its `$id`. */
export const ref = (id: string): JsonSchema => ({ $ref: `${id}#` });

/** An object whose keys are exactly `properties`, every one of them present. */
export const closedObject = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});
