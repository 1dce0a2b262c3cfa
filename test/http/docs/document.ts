/** The service's OpenAPI document as it serves it, for the documentation tests. */
import { createApp } from '../../../src/app.ts';
import { fakeDb } from '../../support/database.ts';
import { testConfig } from '../../support/app.ts';

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  parameters?: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown> }>;
  responses: Record<string, { description: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
}

/** GET /api/v1/docs/openapi.json of an app (no database needed: the document does not read one). */
export async function openApiDocument(): Promise<OpenApiDocument> {
  const app = createApp(testConfig(), fakeDb());
  try {
    const response = await app.inject('/api/v1/docs/openapi.json');
    if (response.statusCode !== 200) throw new Error(`openapi.json answered ${response.statusCode}: ${response.body}`);
    return JSON.parse(response.body) as OpenApiDocument;
  } finally {
    await app.close();
  }
}
