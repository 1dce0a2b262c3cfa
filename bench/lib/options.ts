/**
 * The options several scenarios take, declared once: a scenario spreads those it takes into its
 * options (`...URL_FILE`, or `...withDefault(URL_FILE, DEMO_URL_FILE)` where parseArgs gives the
 * default), and its help line says what the option means there and its default.
 */
import type { OptionsConfig } from './scenario.ts';

/** --url-file FILE: request paths, one per line (bench/lib/urls.ts reads them). */
export const URL_FILE = { 'url-file': { type: 'string' } } as const satisfies OptionsConfig;
/** --connections N[,M]: concurrent connections (clients), or levels of them in turn. */
export const CONNECTIONS = { connections: { type: 'string' } } as const satisfies OptionsConfig;
/** --port P: the loopback port of a server the scenario starts. */
export const PORT = { port: { type: 'string' } } as const satisfies OptionsConfig;
/** --duration S: measured seconds (per level). */
export const DURATION = { duration: { type: 'string' } } as const satisfies OptionsConfig;
/** --warmup S: unmeasured seconds before the measured ones. */
export const WARMUP = { warmup: { type: 'string' } } as const satisfies OptionsConfig;
/** --seconds S: the length of a run or of each of its parts. */
export const SECONDS = { seconds: { type: 'string' } } as const satisfies OptionsConfig;
/** --database-url URL: a PostgreSQL database the scenario reads directly. */
export const DATABASE_URL = { 'database-url': { type: 'string' } } as const satisfies OptionsConfig;

/** The demo network's request paths: the --url-file of the scenarios that start a server on it. */
export const DEMO_URL_FILE = 'bench/urls-demo.txt';

/** `options` (one of the above) with a default, which parseArgs then gives when the option is absent. */
export function withDefault<const O extends Record<string, { readonly type: 'string' }>>(options: O, fallback: string): { [K in keyof O]: { readonly type: 'string'; readonly default: string } } {
  return Object.fromEntries(Object.keys(options).map((name) => [name, { type: 'string', default: fallback }])) as never;
}
