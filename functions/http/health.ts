import { httpHandler } from '../../lib/http/handler.ts';
import { healthStatus } from '../../lib/http/health.ts';

export const handler = httpHandler('health', () => ({ body: healthStatus() }));
