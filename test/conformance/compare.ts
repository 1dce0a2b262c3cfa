import assert from 'node:assert/strict';
import { bigJson } from './specFile.ts';

export interface Received {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export interface Expected {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Re-creates plain objects so that parsed bodies compare by value (json-bigint may use null prototypes). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function deepDiff(actual: unknown, expected: unknown): string | undefined {
  try {
    assert.deepStrictEqual(plain(actual), plain(expected));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Compares like the reference runner: exact status; a content-type; JSON bodies by deep equality
 * (key order free, array order significant, numbers parsed big-integer-safe), other bodies as text;
 * for 2xx answers the expected headers as a subset of the lower-cased response headers.
 * Returns the list of problems (empty when the case passes).
 */
export function compareResponse(received: Received, expected: Expected): string[] {
  const problems: string[] = [];
  if (received.status !== expected.status) problems.push(`status ${received.status}, expected ${expected.status}`);
  const contentType = String(received.headers['content-type'] ?? '');
  if (!contentType) {
    problems.push('no content-type header');
  } else if (contentType.includes('application/json')) {
    let actual: unknown;
    try {
      actual = received.body === '' ? {} : bigJson.parse(received.body);
    } catch (err) {
      problems.push(`body is not valid JSON (${(err as Error).message}): ${received.body.slice(0, 200)}`);
    }
    if (actual !== undefined) {
      const diff = deepDiff(actual, expected.body);
      if (diff) problems.push(`body differs:\n${diff}`);
    }
  } else if (received.body !== expected.body) {
    problems.push(`body ${JSON.stringify(received.body.slice(0, 200))}, expected ${JSON.stringify(expected.body)}`);
  }
  if (received.status >= 200 && received.status < 300) {
    for (const [name, value] of Object.entries(expected.headers)) {
      const actual = received.headers[name.toLowerCase()];
      if (String(actual) !== value) problems.push(`header ${name}: ${JSON.stringify(actual)}, expected ${JSON.stringify(value)}`);
    }
  }
  return problems;
}
