import { httpHandler } from '../../lib/http/handler.ts';
import { referencePage } from '../../lib/reference/reference-page.ts';

export const handler = httpHandler('reference-page', () => referencePage());
