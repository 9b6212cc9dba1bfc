import { healthStatus } from '../../lib/http/health.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('health', () => ({ body: healthStatus() }));
