import { errorOf, keyHeaders } from './api.ts';
import type { components, paths } from './generated/openapi.ts';

type Schemas = components['schemas'];
export type BatchEvent =
  | { event: 'start'; data: Schemas['BatchStartEvent'] }
  | { event: 'progress'; data: Schemas['BatchProgressEvent'] }
  | { event: 'error'; data: Schemas['BatchErrorEvent'] }
  | { event: 'complete'; data: Schemas['BatchCompleteEvent'] };

type StreamPath = '/batch/stream' | '/batch/clients/stream';
export type StreamBody<P extends StreamPath> = NonNullable<
  paths[P]['post']['requestBody']
>['content']['application/json'];

/**
 * POSTs a batch and hands each Server-Sent Event to `onEvent` as it arrives (EventSource cannot
 * POST or send a header). A refusal before the stream starts is the API's JSON error, thrown with
 * its `detail`.
 */
export async function streamBatch<P extends StreamPath>(
  path: P,
  body: StreamBody<P>,
  onEvent: (event: BatchEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await fetch(path, {
    method: 'POST',
    headers: keyHeaders({ 'content-type': 'application/json', accept: 'text/event-stream' }),
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    throw errorOf(response, await response.json().catch(() => undefined));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (data) onEvent({ event, data: JSON.parse(data) } as BatchEvent);
    }
  }
}
