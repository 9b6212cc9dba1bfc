import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '../common/errors.ts';

/** Bodies above 1 MB are refused before parsing (API Gateway alone would accept 10 MB). */
export const MAX_BODY_BYTES = 1024 * 1024;

export function bodyLimit(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      if (!event.body) return;
      const bytes = event.isBase64Encoded
        ? Math.floor((event.body.length * 3) / 4)
        : Buffer.byteLength(event.body);
      if (bytes > MAX_BODY_BYTES) {
        throw new PayloadTooLargeError(
          `Request body is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes (1 MB)`,
        );
      }
    },
  };
}
