import { referencePage } from '../../lib/api-docs/reference-page.ts';
import { httpHandler } from '../../lib/http/handler.ts';

export const handler = httpHandler('reference-page', () => referencePage());
