import { batchStreamHandler } from '../../lib/batch/stream-handler.ts';

/** POST /batch/stream (SPEC §4.3): Lambda response streaming behind a Function URL. */
export const handler = batchStreamHandler();
