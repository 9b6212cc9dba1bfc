import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';
import { logLevel } from './config.ts';

/** The request being served, for log lines written through the module logger. */
const requests = new AsyncLocalStorage<{ requestId: string; awsRequestId?: string }>();

/**
 * Runs `work` as part of the request `requestId` (the `X-Request-Id` its response carries; on
 * Lambda also `awsRequestId`, the invocation's id in Lambda's own REPORT lines): every line logged
 * meanwhile, by any logger, carries them, so a support ticket quoting the id finds all of them
 * (the pipeline gives its own child logger the id as well; use cases deep in lib/ log through
 * `logger`).
 */
export function loggingAs<T>(requestId: string, work: () => T, awsRequestId?: string): T {
  return requests.run(awsRequestId ? { requestId, awsRequestId } : { requestId }, work);
}

/**
 * The id of the request being served (set by `loggingAs`), or undefined outside one (the ops CLI,
 * a scheduled job): the audit trail records it so an entry and the request's log lines meet.
 */
export const currentRequestId = (): string | undefined => requests.getStore()?.requestId;

/**
 * Structured JSON logs. Log ids, counts and timings only: never names, dates of birth, notes or
 * keys (personal data must not reach log storage). The redact list is a safety net, not a licence.
 */
export const logger = pino({
  level: logLevel(),
  base: { service: 'screening' },
  timestamp: pino.stdTimeFunctions.isoTime,
  mixin(_fields, _level, log) {
    const request = requests.getStore();
    if (!request) return {};
    const { requestId, awsRequestId } = request;
    return {
      ...(log.bindings().requestId === undefined ? { requestId } : {}),
      ...(awsRequestId ? { awsRequestId } : {}),
    };
  },
  redact: {
    paths: ['*.name', '*.dob', '*.alias', '*.note', '*.apiKey', '*.api_key', 'headers["x-api-key"]'],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
