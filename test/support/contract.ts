import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { createParser } from 'eventsource-parser';
import { openApiDocument } from '../../lib/openapi/document.ts';

/**
 * Checks responses of the API against its OpenAPI document, as a client generated from the
 * document would read them: the status must be one the operation declares, the body must match the
 * schema declared for that status and content type, and each event of an SSE stream must be one the
 * operation declares, its data matching that event's schema. Requests that no operation of the
 * document takes (unknown paths, other methods: the fallback's 404 and 405) are not checked.
 */

type JsonObject = Record<string, unknown>;
interface ResponseObject {
  content?: Record<string, { schema: unknown; 'x-events'?: JsonObject; 'x-records'?: JsonObject }>;
  headers?: Record<string, { $ref: string }>;
}
interface OperationObject {
  responses: Record<string, ResponseObject>;
}

const DOCUMENT_ID = 'openapi.json';
const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export interface ContractCheck {
  /** The operation answering this method and path, `GET /screens/{screen_id}`; undefined if none. */
  operation: string | undefined;
  /** Problems with the status, content type or body; empty when the response keeps the contract. */
  problems: string[];
}

export function contractOf(document: JsonObject = openApiDocument()) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  formats.default(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (path: string) => {
    let validate = validators.get(path);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${path}` });
      validators.set(path, validate);
    }
    return validate;
  };
  const paths = document.paths as Record<string, Record<string, OperationObject>>;
  // Literal paths before templated ones: /screens/pending is not the screen `pending`.
  const templates = Object.keys(paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  const find = (method: string, pathname: string) => {
    const lower = method.toLowerCase();
    const match = templates.find(({ template, pattern }) => pattern.test(pathname) && paths[template][lower]);
    return match
      ? { template: match.template, method: lower, operation: paths[match.template][lower] }
      : undefined;
  };

  const schemaProblems = (location: string, validate: ValidateFunction, value: unknown) =>
    validate(value)
      ? []
      : (validate.errors ?? [])
          .slice(0, 5)
          .map((error) => `${location}${error.instancePath} ${error.message}`);

  const headerObjects =
    (document.components as { headers?: Record<string, { required?: boolean }> }).headers ?? {};

  /**
   * An export file's lines, each against the record schema its `type` names (`x-records`; a line
   * without a `type` is the first record named, the data).
   */
  function ndjsonProblems(
    found: NonNullable<ReturnType<typeof find>>,
    name: string,
    status: number,
    mediaType: string,
    body: string,
  ): string[] {
    const records = found.operation.responses[String(status)].content?.[mediaType]?.['x-records'];
    if (!records) return [];
    const [dataRecord] = Object.keys(records);
    const problems: string[] = [];
    for (const [index, line] of body.split('\n').entries()) {
      if (line === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        problems.push(`${name} ${status}: line ${index + 1} is not JSON`);
        continue;
      }
      const type = (parsed as { type?: unknown }).type;
      const record = typeof type === 'string' ? type : dataRecord;
      if (!(record in records)) {
        problems.push(`${name} ${status}: line ${index + 1} is a "${record}" record, not one declared`);
        continue;
      }
      const at = pointer(
        'paths',
        found.template,
        found.method,
        'responses',
        String(status),
        'content',
        mediaType,
        'x-records',
        record,
      );
      problems.push(...schemaProblems(`${name} ${status} line ${index + 1}`, validatorAt(at), parsed));
      if (problems.length >= 5) break;
    }
    return problems;
  }

  /** The body against the schema of its status and content type. */
  function bodyProblems(
    found: NonNullable<ReturnType<typeof find>>,
    name: string,
    status: number,
    headers: Headers,
    body: string,
  ): string[] {
    const declared = found.operation.responses[String(status)];
    const mediaTypes = Object.keys(declared.content ?? {});
    if (mediaTypes.length === 0) return body ? [`${name} ${status}: a body where none is declared`] : [];
    const contentType = headers.get('content-type');
    const mediaType = mediaTypes.find((type) => contentType?.startsWith(type));
    if (!mediaType) return [`${name} ${status}: content-type ${contentType}, declared ${mediaTypes}`];
    if (mediaType === 'application/x-ndjson') return ndjsonProblems(found, name, status, mediaType, body);
    // Problem details (errors) are JSON too: checked against the same schema.
    if (mediaType !== 'application/json' && mediaType !== 'application/problem+json') return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`${name} ${status}: the body is not JSON`];
    }
    const at = pointer(
      'paths',
      found.template,
      found.method,
      'responses',
      String(status),
      'content',
      mediaType,
      'schema',
    );
    return schemaProblems(`${name} ${status} body`, validatorAt(at), parsed);
  }

  return {
    /** The response's status, required header fields, content type and (for JSON) body. */
    check(method: string, url: string, status: number, headers: Headers, body: string): ContractCheck {
      // A 405 is the answer of no operation (the fallback, or a stream route's own method check):
      // GET /batch/stream is the stream's 405, though GET /batch/{batch_id} would match its path.
      const found = status === 405 ? undefined : find(method, new URL(url).pathname);
      if (!found) return { operation: undefined, problems: [] };
      const name = `${found.method.toUpperCase()} ${found.template}`;
      const declared = found.operation.responses[String(status)];
      if (!declared) {
        const statuses = Object.keys(found.operation.responses).join(', ');
        return {
          operation: name,
          problems: [`${name}: status ${status} is not declared (declared: ${statuses})`],
        };
      }
      const missing = Object.entries(declared.headers ?? {})
        .filter(
          ([field, { $ref }]) => headerObjects[$ref.split('/').at(-1) ?? '']?.required && !headers.has(field),
        )
        .map(([field]) => `${name} ${status}: no ${field} header`);
      return { operation: name, problems: [...missing, ...bodyProblems(found, name, status, headers, body)] };
    },

    /**
     * A checker of the SSE stream answering `method url` with 200: feed it the stream's text as it
     * arrives; each complete event is checked against the events the operation declares.
     */
    eventChecker(method: string, url: string, report: (problem: string) => void) {
      const found = find(method, new URL(url).pathname);
      const content = found?.operation.responses['200']?.content?.['text/event-stream'];
      if (!found || !content?.['x-events']) return undefined;
      const name = `${found.method.toUpperCase()} ${found.template}`;
      const events = content['x-events'];
      const parser = createParser({
        onEvent: ({ event = 'message', data }) => {
          if (!(event in events)) {
            report(`${name}: event "${event}" is not declared (declared: ${Object.keys(events).join(', ')})`);
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(data);
          } catch {
            report(`${name}: the data of event "${event}" is not JSON`);
            return;
          }
          const at = pointer(
            'paths',
            found.template,
            found.method,
            'responses',
            '200',
            'content',
            'text/event-stream',
            'x-events',
            event,
          );
          for (const problem of schemaProblems(`${name} event "${event}"`, validatorAt(at), parsed))
            report(problem);
        },
      });
      return { feed: (text: string) => parser.feed(text) };
    },
  };
}

export type Contract = ReturnType<typeof contractOf>;
