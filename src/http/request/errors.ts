/**
 * An error answered to the client with its own status and messages (4xx). It is an answer, not a
 * fault: no stack trace is captured (that was most of its cost on the 400s and 404s of a busy server).
 */
export class ClientError extends Error {
  readonly status: number;
  readonly messages: string[];

  constructor(status: number, messages: string | string[]) {
    const list = Array.isArray(messages) ? messages : [messages];
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(list.join('; '));
    Error.stackTraceLimit = stackTraceLimit;
    this.status = status;
    this.messages = list;
  }
}

export const badRequest = (messages: string | string[]) => new ClientError(400, messages);
export const notFound = (message = 'Not found') => new ClientError(404, message);

/** The reference's error body: {"_status":{"messages":[{"message":...}]}} */
export function errorBody(messages: readonly string[]): string {
  return JSON.stringify({ _status: { messages: messages.map((message) => ({ message })) } });
}
