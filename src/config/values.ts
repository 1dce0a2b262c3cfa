/** Typed readers of configuration values: each names the key in its one-line error. */
import parseDuration from 'parse-duration';
import { type Tree, isTree } from './tree.ts';

export class ConfigError extends Error {}

export function integer(tree: Tree, path: string, min: number, max: number): number {
  const value = pathValue(tree, path);
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`Invalid configuration: ${path} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

export function bool(tree: Tree, path: string): boolean {
  const value = pathValue(tree, path);
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ConfigError(`Invalid configuration: ${path} must be true or false, got ${JSON.stringify(value)}`);
}

export function text(tree: Tree, path: string): string {
  const value = pathValue(tree, path);
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new ConfigError(`Invalid configuration: ${path} must be a string, got ${JSON.stringify(value)}`);
}

export function duration(tree: Tree, path: string): [string, bigint] {
  const value = text(tree, path);
  const ms = parseDuration(value);
  if (ms === null || ms === undefined || !(ms > 0)) {
    throw new ConfigError(`Invalid configuration: ${path} must be a positive duration such as 7d, 10s or 500ms, got ${JSON.stringify(value)}`);
  }
  return [value, BigInt(Math.round(ms * 1_000_000))];
}

export function pathValue(tree: Tree, path: string): unknown {
  let node: unknown = tree;
  for (const part of path.split('.')) node = isTree(node) ? node[part] : undefined;
  return node;
}
