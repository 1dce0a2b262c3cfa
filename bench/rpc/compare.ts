/**
 * The verdict on one request sent to A and B: the same bytes, the same JSON once filter ids (random
 * on each side) are replaced by their shape, the same values in another key order or spelling, or
 * a difference, with the first path where the two differ. A timeout or a connection error on
 * either side is a verdict of its own.
 */
import type { Reply } from './jsonRpc.ts';

export type Verdict = 'same' | 'same-masked' | 'kept' | 'format' | 'key-order' | 'status' | 'differ' | 'timeout' | 'no-answer';

export interface StepResult {
  verdict: Verdict;
  /** where the two differ first, and how */
  detail?: string;
}

/** A filter id replaced by its shape: `<id 0x+32hex>`; in a batch, every item's. */
export function maskFilterId(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(maskFilterId);
  if (json === null || typeof json !== 'object') return json;
  const o = json as Record<string, unknown>;
  if (typeof o.result !== 'string') return json;
  const m = /^0x([0-9a-f]*)$/.exec(o.result);
  return { ...o, result: m ? `<id 0x+${m[1]!.length}hex>` : `<id ${o.result.length} chars, not lower-case hex>` };
}

const REQUEST_ID = /\[Request ID: (?:\[Request ID: [^\]]*\]|[^\]]*)\]/g;

/**
 * A reply with every `[Request ID: ...]` of its text as `[Request ID: <id>]`: over a WebSocket the
 * relay's ws-server names each message with an id of its own, which no header sets.
 */
export function maskRequestIds(reply: Reply): Reply {
  if (!REQUEST_ID.test(reply.text)) return reply;
  const text = reply.text.replace(REQUEST_ID, '[Request ID: <id>]');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { ...reply, text, json };
}

/** The same values with the keys of every object sorted. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedKeys((v as Record<string, unknown>)[k])]));
}

const brief = (v: unknown) => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

/** The first path where `a` and `b` differ, with both values there. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return a.length === b.length ? undefined : `${path}: length ${a.length} vs ${b.length}`;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    for (const k of ka) {
      if (!(k in b)) return `${path}.${k}: only in A (${brief((a as Record<string, unknown>)[k])})`;
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    const extra = kb.find((k) => !(k in a));
    return extra === undefined ? undefined : `${path}.${extra}: only in B (${brief((b as Record<string, unknown>)[extra])})`;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : `${path}: ${brief(a)} vs ${brief(b)}`;
}

export function compareReplies(a: Reply, b: Reply, filterId: boolean): StepResult {
  if (a.timedOut || b.timedOut) return { verdict: 'timeout', detail: `${a.timedOut ? 'A' : ''}${b.timedOut ? 'B' : ''} timed out` };
  if (a.status === 0 || b.status === 0) return { verdict: 'no-answer', detail: `A: ${a.error ?? a.status}, B: ${b.error ?? b.status}` };
  const statusNote = a.status === b.status ? '' : `HTTP ${a.status} vs ${b.status}; `;
  if (a.text === b.text) return statusNote ? { verdict: 'status', detail: statusNote.slice(0, -2) } : { verdict: 'same' };
  if (a.json === undefined || b.json === undefined) {
    return { verdict: 'differ', detail: `${statusNote}body ${brief(a.text)} vs ${brief(b.text)}` };
  }
  const ma = filterId ? maskFilterId(a.json) : a.json;
  const mb = filterId ? maskFilterId(b.json) : b.json;
  const sa = JSON.stringify(ma);
  const sb = JSON.stringify(mb);
  if (sa === sb) {
    if (statusNote) return { verdict: 'status', detail: statusNote.slice(0, -2) };
    if (filterId && JSON.stringify(a.json) !== JSON.stringify(b.json)) return { verdict: 'same-masked' };
    return { verdict: 'format', detail: `same JSON, other bytes: ${brief(a.text)} vs ${brief(b.text)}` };
  }
  if (JSON.stringify(sortedKeys(ma)) === JSON.stringify(sortedKeys(mb))) {
    return { verdict: statusNote ? 'status' : 'key-order', detail: `${statusNote}key order: ${brief(ma)} vs ${brief(mb)}` };
  }
  return { verdict: 'differ', detail: `${statusNote}${firstDifference(ma, mb)}` };
}
