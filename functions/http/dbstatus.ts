import { httpHandler } from '../../lib/http/handler.ts';
import { describeDatabase } from '../../lib/watchlists/status.ts';

export const handler = httpHandler('dbstatus', {}, ({ services }) => ({
  body: describeDatabase(services.matcher().lists),
}));
