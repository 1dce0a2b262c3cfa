import { randomBytes } from 'node:crypto';

/**
 * A bigint is written by JSON.stringify's replacer as a string holding this process-unique marker
 * and its digits, then the quoted marker is replaced by the bare digits. JSON.stringify escapes the
 * leading NUL as \u0000, and the random part keeps a client's string from ever looking the same.
 */
const MARK_ID = randomBytes(8).toString('hex');
const MARK = `\u0000${MARK_ID}`;
const MARKED = new RegExp(`"\\\\u0000${MARK_ID}(-?\\d+)"`, 'g');

const replacer = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${MARK}${value}` : value);

/**
 * JSON serialization that prints bigint values as exact decimal numbers (64-bit integers beyond 2^53),
 * with no whitespace and object keys in insertion order, like the reference's BigInt-aware JSON.stringify.
 * Native JSON.stringify does the work. Bodies without a bigint (nearly all) take its fast path: a
 * replacer function alone makes it several times slower. A bigint makes that first attempt throw a
 * TypeError, and only then is the body serialized again with the replacer.
 */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  const text = JSON.stringify(value, replacer) ?? 'null';
  return text.includes(MARK_ID) ? text.replace(MARKED, '$1') : text;
}

/** A body already serialized by its view (for bodies whose shape allows a cheaper way than toJson). */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A body with an encoder of its own: `value` is the body as toJson takes it (and as the NDJSON
 * answers read its items), `bytes()` writes the same JSON, UTF-8 encoded. Every listing is one
 * (http/request/listing.ts): written item by item, with a hand-written template per item for the log
 * and result listings (on pages of 25-100 items JSON.stringify's generic walk over the item objects
 * cost twice as much). The encoders are checked against toJson (test/format/encoders.test.ts).
 */
export class Encoded<T = unknown> {
  constructor(
    readonly value: T,
    private readonly encode: (value: T) => Buffer,
  ) {}

  bytes(): Buffer {
    return this.encode(this.value);
  }
}

/** Strings joined into one below this length (UTF-16 units) before they are encoded. */
const CHUNK_LENGTH = 32_768;

/**
 * The UTF-8 bytes of `head`, the `parts` separated by `separator`, and `tail`: the same bytes as
 * Buffer.from(head + parts.join(separator) + tail) for strings that are well-formed UTF-16 each (as
 * JSON texts are: JSON.stringify escapes lone surrogates), without ever holding that text as one string.
 * The parts are joined into strings of about CHUNK_LENGTH and each is encoded into one buffer of the
 * exact size. A page of 100 items is 120-180 KB of JSON: as one string it was an object of V8's
 * large-object space (over 128 KB: pages mapped for it and unmapped after it, each touch of a new page
 * a fault), built twice (the join, then the flattening of the text around it that Buffer.from needs);
 * that took 1.0-1.9 ms a page against 0.25-0.3 ms this way (docs/history/performance-until-2026-11-28.md).
 */
export function utf8Join(head: string, parts: readonly string[], separator: string, tail: string): Buffer {
  const chunks: string[] = [];
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let from = 0;
  let size = 0;
  for (let i = 0; i < parts.length; i++) {
    size += parts[i]!.length;
    if (size < CHUNK_LENGTH && i < parts.length - 1) continue;
    const chunk = from === i ? parts[i]! : parts.slice(from, i + 1).join(separator);
    chunks.push(chunk);
    length += Buffer.byteLength(chunk);
    from = i + 1;
    size = 0;
  }
  const separatorLength = Buffer.byteLength(separator);
  length += Math.max(0, chunks.length - 1) * separatorLength;
  const out = Buffer.allocUnsafe(length);
  let at = out.write(head, 0);
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0) at += out.write(separator, at);
    at += out.write(chunks[i]!, at);
  }
  at += out.write(tail, at);
  if (at !== length) throw new Error(`utf8Join wrote ${at} of ${length} bytes`);
  return out;
}

/**
 * A JSON string for text that holds nothing JSON escapes, by construction: hex digits, entity ids,
 * timestamps and addresses as the formatters in this folder write them. Any other text (a column
 * of free text, a link) goes through JSON.stringify.
 */
export const plainString = (text: string | null): string => (text === null ? 'null' : `"${text}"`);

/** An integer (number, bigint or null) as toJson writes it: bare decimal digits. */
export const jsonInteger = (value: number | bigint | null): string => (value === null ? 'null' : `${value}`);

/** An int8 value from the database (text) as a JSON-ready number: number when exact, bigint otherwise. */
export function int8(value: string | null): number | bigint | null {
  if (value === null) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
}
