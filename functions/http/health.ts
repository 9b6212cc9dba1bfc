import { httpHandler } from '../../lib/http/handler.ts';
import { healthStatus } from '../../lib/system/health.ts';

export const handler = httpHandler('health', () => ({ body: healthStatus() }));
