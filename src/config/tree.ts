/** Configuration trees (parsed YAML, defaults): plain nested objects keyed by configuration key. */
export type Tree = Record<string, unknown>;

export const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge in the manner of lodash `merge` for plain objects: source values win, objects merge. */
export function mergeTree(target: Tree, source: Tree): Tree {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    target[key] = isTree(value) && isTree(current) ? mergeTree({ ...current }, value) : value;
  }
  return target;
}

export function pick(tree: unknown, path: string[]): Tree {
  let node = tree;
  for (const part of path) {
    if (!isTree(node)) return {};
    node = node[part];
  }
  return isTree(node) ? node : {};
}

/**
 * Sets `value` at the path whose segments match existing keys case-insensitively (env var style);
 * returns the path as written in the tree, or undefined when no such key exists.
 */
export function setCaseInsensitive(tree: Tree, segments: string[], value: string): string[] | undefined {
  let node: Tree = tree;
  const path: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const wanted = segments[i]!.toLowerCase();
    const key = Object.keys(node).find((k) => k.toLowerCase() === wanted);
    if (key === undefined) return undefined;
    path.push(key);
    if (i === segments.length - 1) {
      if (isTree(node[key])) return undefined;
      node[key] = value;
      return path;
    }
    const child = node[key];
    if (!isTree(child)) return undefined;
    node = child;
  }
  return undefined;
}

/** Every leaf key path of a tree ("db.pool.maxConnections"); arrays and empty objects are leaves. */
export function leafPaths(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    isTree(value) && Object.keys(value).length > 0 ? leafPaths(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}
