/**
 * What a method answers: a JSON value already written as text, or the logs of a search as pages of
 * JSON text in bytes (an array written while it is read; `finish` runs once the last page is written).
 */
export type MethodAnswer = { json: string } | { pages: AsyncGenerator<Buffer>; finish?: () => Promise<void> };

export const jsonAnswer = (value: unknown): MethodAnswer => ({ json: JSON.stringify(value) });
