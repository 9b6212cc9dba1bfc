import { createParser } from 'eventsource-parser';

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Reads a whole Server-Sent Events response with a real SSE parser (comments are skipped). */
export async function readEvents(response: Response): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event ?? 'message', data: JSON.parse(message.data) }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!)
    parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  return events;
}
