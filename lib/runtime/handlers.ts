import { pipelineOf } from '../http/handler.ts';
import { getServices } from './services.ts';

/**
 * The request pipeline (lib/http/handler.ts) bound to the composition root's adapters: what every
 * function in functions/http and functions/stream wraps its use case in.
 */
export const { httpHandler, streamHandler } = pipelineOf(getServices);
