/**
 * The answer to one request as the relay's server writes it: `{"result":...,"jsonrpc":"2.0","id":...}`
 * or `{"error":{...},"jsonrpc":"2.0","id":...}`. A paged answer is written as it is read; its first
 * page is read before anything is written, so that a search that fails at once is an error answer.
 */
import type { Outcome, RpcId } from './dispatch.ts';
import { asRpcError } from './dispatch.ts';
import { type RpcError, errorJson } from './errors.ts';

const tail = (id: RpcId) => `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

export const answerError = (id: RpcId, error: RpcError, requestId: string): string => `{"error":${errorJson(error, requestId)}${tail(id)}`;

/** The answer's text in chunks; an error before the first page becomes the error answer. */
export async function outcomeChunks(outcome: Outcome, requestId: string): Promise<AsyncGenerator<string>> {
  const { id } = outcome;
  if ('error' in outcome) return single(answerError(id, outcome.error, requestId));
  const { answer } = outcome;
  if ('json' in answer) return single(`{"result":${answer.json}${tail(id)}`);
  let first: IteratorResult<string>;
  try {
    first = await answer.pages.next();
  } catch (err) {
    return single(answerError(id, asRpcError(err), requestId));
  }
  return (async function* () {
    yield '{"result":[';
    if (!first.done) {
      yield first.value;
      for await (const page of answer.pages) yield `,${page}`;
    }
    await answer.finish?.();
    yield `]${tail(id)}`;
  })();
}

/** An answer's chunks with its first page read only when they are first asked for: a batch's answers read one after another. */
export async function* deferredChunks(outcome: Outcome, requestId: string): AsyncGenerator<string> {
  yield* await outcomeChunks(outcome, requestId);
}

/** A text as the chunks of an answer. */
export async function* single(text: string): AsyncGenerator<string> {
  yield text;
}

/** A batch's answers, in request order, as one JSON array written as it is read. */
export async function* batchChunks(answers: readonly AsyncIterable<string>[]): AsyncGenerator<string> {
  yield '[';
  for (let i = 0; i < answers.length; i++) {
    if (i > 0) yield ',';
    yield* answers[i]!;
  }
  yield ']';
}
