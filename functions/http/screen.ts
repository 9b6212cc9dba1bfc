import { httpHandler } from '../../lib/http/handler.ts';
import { ScreenRequestSchema } from '../../lib/screening/request.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

export const handler = httpHandler(
  'screen',
  { body: ScreenRequestSchema },
  async ({ services, principal, body }) => ({
    body: await screenSubject(services, principal, body),
  }),
);
