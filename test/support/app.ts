/**
 * The service's HTTP app on a test database, requests through app.inject (in process, no port).
 * Every test that sends requests builds its app here, so a change to how the app is made touches
 * this file only.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config/config.ts';
import type { Db } from '../../src/db/db.ts';
import { type Route } from '../../src/http/route.ts';
import { buildApp } from '../../src/http/server/server.ts';
import type { NetworkSource } from '../../src/http/server/networks.ts';
import { type Backend, type TestDatabase, openTestDatabase } from './database.ts';

/**
 * The default configuration (no configuration file, no environment; `env` as environment
 * variables), except that load shedding on event-loop delay is off: on a loaded test machine a
 * slow start-up (the docs' schemas) would otherwise shed the first requests of a test. The tests
 * of shedding turn it on again through `env`.
 */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ HIERO_MIRROR_REST_SERVER_PRESSURE_MAXEVENTLOOPDELAY: '0', ...env }, '/nonexistent');
}

export interface AppOptions {
  /** Default: testConfig(). */
  config?: Config;
  /** Routes to serve instead of the service's own (tests of the HTTP layer alone). */
  routes?: Route[];
  /** A fixed or fake clock (ns since the epoch) instead of the system's. */
  clock?: () => bigint;
  /** Several networks (src/http/server/networks.ts): each with its configuration and database. */
  networks?: NetworkSource[];
  defaultNetwork?: string;
}

/** The app on `db`. The caller closes it (app.close()). */
export function appOn(db: Db, options: AppOptions = {}): FastifyInstance {
  const { config = testConfig(), routes, clock, networks, defaultNetwork } = options;
  const served = networks ? { networks, defaultNetwork } : {};
  return routes ? buildApp({ config, db, routes, ...(clock ? { clock } : {}), ...served }) : createApp(config, db, false, clock, served);
}

/** A JSON answer: status, parsed body, headers. */
export interface JsonReply<T> {
  status: number;
  body: T;
  headers: LightMyRequestResponse['headers'];
}

/** GET `url` (a path with its query) through app.inject. */
export function get(app: FastifyInstance, url: string, headers?: InjectOptions['headers']): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers });
}

/** GET `url` and parse the body as JSON. */
export async function getJson<T = Record<string, any>>(app: FastifyInstance, url: string): Promise<JsonReply<T>> {
  const response = await get(app, url);
  return { status: response.statusCode, body: JSON.parse(response.body) as T, headers: response.headers };
}

export interface TestApp {
  database: TestDatabase;
  db: Db;
  app: FastifyInstance;
  /** GET `url`: the raw response (statusCode, headers, body, json()). */
  get(url: string, headers?: InjectOptions['headers']): Promise<LightMyRequestResponse>;
  /** GET `url` with the body parsed as JSON. */
  getJson<T = Record<string, any>>(url: string): Promise<JsonReply<T>>;
  /** Closes the app, then the database. */
  close(): Promise<void>;
}

/**
 * A fresh migrated database on `backend` (see openTestDatabase), filled by `fill`, with the app
 * on it. For `before(...)`; close it in `after(...)`.
 */
export async function openTestApp(
  backend: Backend,
  fill?: (db: Db) => Promise<unknown>,
  options: AppOptions = {},
): Promise<TestApp> {
  const database = await openTestDatabase(backend);
  let app: FastifyInstance;
  try {
    await fill?.(database.db);
    app = appOn(database.db, options);
  } catch (err) {
    await database.close();
    throw err;
  }
  return {
    database,
    db: database.db,
    app,
    get: (url, headers) => get(app, url, headers),
    getJson: (url) => getJson(app, url),
    async close() {
      await app.close();
      await database.close();
    },
  };
}
