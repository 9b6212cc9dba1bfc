import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidRequestError } from '../common/errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON body parsing with @middy/http-json-body-parser. The content type is not insisted on,
 * because `curl -d` sends form encoding by default and a JSON body is still what was meant;
 * an empty body is left undefined so validation can say which fields are required.
 *
 * A body that arrives base64-encoded (API Gateway does that for bodies it does not take for text;
 * the local server for bodies that are not UTF-8) is decoded strictly: bytes that are not UTF-8
 * are a 400, never silently replaced by U+FFFD and screened as something else.
 */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEventV2> {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  return {
    before: async (request) => {
      const { event } = request;
      if (event.isBase64Encoded && event.body) {
        try {
          event.body = strictUtf8.decode(Buffer.from(event.body, 'base64'));
        } catch {
          throw new InvalidRequestError('Request body is not valid UTF-8');
        }
        event.isBase64Encoded = false;
      }
      if (request.event.body === undefined || request.event.body === '') {
        (request.event as { body?: unknown }).body = undefined;
        return;
      }
      return parser.before?.(request as never);
    },
  };
}
