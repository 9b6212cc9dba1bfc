import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { InvalidRequestError } from '../common/errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON body parsing. The content type is not insisted on, because `curl -d` sends form encoding
 * by default and a JSON body is still what was meant; an empty body is left undefined so
 * validation can say which fields are required. (A few lines of our own rather than
 * @middy/http-json-body-parser, whose current line asks for Node 22 while the service runs on 20.)
 *
 * A body that arrives base64-encoded (API Gateway does that for bodies it does not take for text;
 * the local server for bodies that are not UTF-8) is decoded strictly: bytes that are not UTF-8
 * are a 400, never silently replaced by U+FFFD and screened as something else.
 */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const event = request.event as { body?: unknown; isBase64Encoded?: boolean };
      if (event.isBase64Encoded && typeof event.body === 'string' && event.body !== '') {
        try {
          event.body = strictUtf8.decode(Buffer.from(event.body, 'base64'));
        } catch {
          throw new InvalidRequestError('Request body is not valid UTF-8');
        }
        event.isBase64Encoded = false;
      }
      if (event.body === undefined || event.body === null || event.body === '') {
        event.body = undefined;
        return;
      }
      if (typeof event.body !== 'string') return;
      try {
        event.body = JSON.parse(event.body);
      } catch {
        throw new InvalidRequestError('Request body is not valid JSON', 'invalid_json');
      }
    },
  };
}
