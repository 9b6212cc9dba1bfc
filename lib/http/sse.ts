/**
 * Server-Sent Events framing (the HTML standard's `text/event-stream`), for every streamed route:
 * use cases yield event objects, the pipeline (handler.ts) writes each yielded group as one chunk.
 */

/** A named event with a JSON payload, or a comment line (keeps idle connections open). */
export type SseMessage = { event: string; data: unknown } | { comment: string };

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx-style proxies buffer responses unless told not to; the events must arrive as they happen.
  'x-accel-buffering': 'no',
} as const;

/** The wire form of a group of messages: one chunk, so a poll's events leave in one write. */
export function frameSse(messages: readonly SseMessage[]): string {
  return messages
    .map((message) =>
      'comment' in message
        ? `: ${message.comment}\n\n`
        : `event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`,
    )
    .join('');
}
