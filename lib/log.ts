import { pino } from 'pino';

/**
 * Structured JSON logs. Log ids, counts and timings only: never names, dates of birth, notes or
 * keys (personal data must not reach log storage). The redact list is a safety net, not a licence.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: { service: 'screening' },
  timestamp: pino.stdTimeFunctions.isoTime,
  redact: {
    paths: ['*.name', '*.dob', '*.alias', '*.note', '*.apiKey', '*.api_key', 'headers["x-api-key"]'],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
