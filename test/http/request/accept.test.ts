import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerForm } from '../../../src/http/request/accept.ts';

const BOTH = { listing: true, events: true };

test('answerForm: the stream a client names, with its quality values and in any case; JSON otherwise', () => {
  const cases: Array<[string | undefined, object, string]> = [
    [undefined, BOTH, 'json'],
    ['', BOTH, 'json'],
    ['application/x-ndjson', BOTH, 'ndjson'],
    ['APPLICATION/X-NDJSON', BOTH, 'ndjson'],
    ['application/x-ndjson;Q=0', BOTH, 'json'],
    ['application/json;q=1, application/x-ndjson;q=0.5', BOTH, 'json'],
    ['application/x-ndjson, application/json', BOTH, 'ndjson'],
    ['application/x-ndjson;q=0.5, */*;q=0.1', BOTH, 'ndjson'],
    ['text/event-stream', BOTH, 'events'],
    ['Text/Event-Stream', BOTH, 'events'],
    ['text/event-stream;q=0', BOTH, 'json'],
    ['text/event-stream', { listing: true }, 'json'],
    ['application/x-ndjson', { events: true }, 'json'],
    ['application/x-ndjson', {}, 'json'],
    // wildcards never open a stream
    ['*/*', BOTH, 'json'],
    ['text/*', BOTH, 'json'],
    ['application/json;q=0, */*', BOTH, 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', BOTH, 'json'],
    ['garbage;;;,,,', BOTH, 'json'],
  ];
  for (const [accept, route, form] of cases) assert.equal(answerForm(accept, route), form, `${accept} ${JSON.stringify(route)}`);
  assert.equal(answerForm(['text/html', 'text/event-stream']), 'events', 'repeated Accept headers are one list');
});
