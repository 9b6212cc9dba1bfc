import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * JSON body parsing with @middy/http-json-body-parser. The content type is not insisted on,
 * because `curl -d` sends form encoding by default and a JSON body is still what was meant;
 * an empty body is left undefined so validation can say which fields are required.
 */
export function jsonBody(): MiddlewareObj<APIGatewayProxyEventV2> {
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  return {
    before: async (request) => {
      if (request.event.body === undefined || request.event.body === '') {
        (request.event as { body?: unknown }).body = undefined;
        return;
      }
      return parser.before?.(request as never);
    },
  };
}
