/**
 * The answer to one request as the relay's server writes it: `{"result":...,"jsonrpc":"2.0","id":...}`
 * or `{"error":{...},"jsonrpc":"2.0","id":...}`. An answer of several pages is written as it is read;
 * its first two pages are read before anything is written, so that a search that fails at once is an
 * error answer, and one of a single page goes out whole.
 */
import type { Outcome, RpcId } from './dispatch.ts';
import { asRpcError } from './dispatch.ts';
import { type RpcError, errorJson } from './errors.ts';

const tail = (id: RpcId) => `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

export const answerError = (id: RpcId, error: RpcError, requestId: string): string => `{"error":${errorJson(error, requestId)}${tail(id)}`;

/** A piece of an answer as it goes out: text, or bytes (a page of logs, logPages.ts). */
export type Chunk = string | Buffer;

const RESULT_HEAD = Buffer.from('{"result":[');

/**
 * The answer: whole when the logs are one page or none (most calls: sent with a length, in one
 * write), else in chunks, written as they are read. The second page is read before anything is
 * written, to know which; an error before it becomes the error answer.
 */
export async function outcomeChunks(outcome: Outcome, requestId: string): Promise<Chunk | AsyncGenerator<Chunk>> {
  const { id } = outcome;
  if ('error' in outcome) return answerError(id, outcome.error, requestId);
  const { answer } = outcome;
  if ('json' in answer) return `{"result":${answer.json}${tail(id)}`;
  let first: IteratorResult<Buffer>;
  let second: IteratorResult<Buffer>;
  try {
    first = await answer.pages.next();
    second = first.done ? first : await answer.pages.next();
    if (second.done) await answer.finish?.();
  } catch (err) {
    return answerError(id, asRpcError(err), requestId);
  }
  if (first.done) return `{"result":[]${tail(id)}`;
  if (second.done) return Buffer.concat([RESULT_HEAD, first.value, Buffer.from(`]${tail(id)}`)]);
  // every page after the first starts with its comma
  return (async function* () {
    yield Buffer.concat([RESULT_HEAD, first.value]);
    yield second.value;
    for await (const page of answer.pages) yield page;
    await answer.finish?.();
    yield `]${tail(id)}`;
  })();
}

/** An answer's chunks with its first page read only when they are first asked for: a batch's answers read one after another. */
export async function* deferredChunks(outcome: Outcome, requestId: string): AsyncGenerator<Chunk> {
  const chunks = await outcomeChunks(outcome, requestId);
  if (typeof chunks === 'string' || Buffer.isBuffer(chunks)) yield chunks;
  else yield* chunks;
}

/** A text as the chunks of an answer. */
export async function* single(text: string): AsyncGenerator<Chunk> {
  yield text;
}

/** A batch's answers, in request order, as one JSON array written as it is read. */
export async function* batchChunks(answers: readonly AsyncIterable<Chunk>[]): AsyncGenerator<Chunk> {
  yield '[';
  for (let i = 0; i < answers.length; i++) {
    if (i > 0) yield ',';
    yield* answers[i]!;
  }
  yield ']';
}
