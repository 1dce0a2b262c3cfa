/** Command-line pieces the bench scripts share: usage errors (exit code 2), numeric options, a free port. */
import { type AddressInfo, createServer } from 'node:net';
import { httpErrors } from '../../src/http/answer/errorCatalog.ts';

/** The mirror node's 503 body (shutdown, load shedding, database unavailable), as the service must answer it (its error catalog's). */
export const MIRROR_503 = httpErrors.unavailable.body;

/**
 * Reports a usage error and exits 2. Give the variable that holds it an explicit type
 * (`const fail: Fail = ...`): only then does TypeScript know that code after a call is unreachable.
 */
export type Fail = (message: string) => never;

/**
 * A `Fail` that writes `error: <message>`, then `usage`, to stderr and exits 2; with `blankLine: false`
 * the usage starts on the line right after the message instead of after an empty line.
 */
export function usageFailure(usage: string, { blankLine = true } = {}): Fail {
  const gap = blankLine ? '\n\n' : '\n';
  return (message) => {
    process.stderr.write(`error: ${message}${gap}${usage}\n`);
    process.exit(2);
  };
}

/** Each parser answers `fallback` when the option is absent, and fails with `--<name> must be ...` when its value does not fit. */
export interface NumberOptions {
  /** A finite number above 0. */
  positive(name: string, value: string | undefined, fallback: number): number;
  /** An integer of at least 1. */
  positiveInteger(name: string, value: string | undefined, fallback: number): number;
  /** A finite number of at least `min`. */
  atLeast(name: string, value: string | undefined, fallback: number, min?: number): number;
  /** An integer of at least `min` (the message shows the value unquoted). */
  integerAtLeast(name: string, value: string | undefined, fallback: number, min?: number): number;
}

/** The numeric option parsers, reporting through `fail`. */
export function numberOptions(fail: Fail): NumberOptions {
  const parse = (name: string, value: string | undefined, fallback: number, fits: (n: number) => boolean, expected: string, quote = true): number => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!fits(n)) fail(`--${name} must be ${expected}, got ${quote ? JSON.stringify(value) : value}`);
    return n;
  };
  return {
    positive: (name, value, fallback) => parse(name, value, fallback, (n) => Number.isFinite(n) && n > 0, 'a positive number'),
    positiveInteger: (name, value, fallback) => parse(name, value, fallback, (n) => Number.isInteger(n) && n >= 1, 'a positive integer'),
    atLeast: (name, value, fallback, min = 0) => parse(name, value, fallback, (n) => Number.isFinite(n) && n >= min, `a number of at least ${min}`),
    integerAtLeast: (name, value, fallback, min = 1) =>
      parse(name, value, fallback, (n) => Number.isInteger(n) && n >= min, `an integer >= ${min}`, false),
  };
}

/** True for the hostnames of loopback: localhost, ::1 (bracketed or not), 127.x.y.z. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * `--name`'s value as a URL whose scheme is `scheme` (http, postgres...; `alias` too) on this
 * machine; a usage error through `fail` otherwise. `onHost` says why it must be local.
 */
export function loopbackUrl(fail: Fail, name: string, value: string, scheme: string, onHost = 'a loopback address (127.0.0.1, ::1, localhost)', alias?: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`--${name} is not a URL: ${value}`);
  }
  if (url.protocol !== `${scheme}:` && url.protocol !== `${alias}:`) fail(`--${name} must be a ${scheme}:// URL`);
  if (!isLoopback(url.hostname)) fail(`--${name} must be ${onHost}, got ${url.hostname}`);
  return url;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
