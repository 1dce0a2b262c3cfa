/**
 * Texts known to be ASCII (JSON made of hex digits, numbers and fixed keys) joined straight into the
 * bytes that go out. A large answer built as one string costs three passes over it before the
 * socket takes it: the join, the length of its UTF-8 form (Content-Length) and the UTF-8 form
 * itself; written into a buffer, each text is copied once (Latin-1, which for ASCII is the UTF-8
 * form). Only for texts whose every character is below 0x80: any other would be written wrong.
 */

const COMMA = 0x2c;

/** The texts, separated by commas, as bytes; with `continued`, a comma before the first too (the items after others of a list). */
export function asciiJoin(texts: readonly string[], continued = false): Buffer {
  const first = continued ? 0 : 1;
  let length = texts.length > 0 ? texts.length - first : 0;
  for (const text of texts) length += text.length;
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    if (i >= first) bytes[at++] = COMMA;
    at += bytes.write(texts[i]!, at, 'latin1');
  }
  return bytes;
}
