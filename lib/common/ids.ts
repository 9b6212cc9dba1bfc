/**
 * Every id the service hands out, its pattern written once. Each is bounded, so an id of any
 * length that is not one is a 404 (or a 400) before it reaches the store, whose keys are limited
 * to 1 KB. The modules that mint each kind of id name it: screening/screen-id.ts (screens),
 * monitoring/client-record.ts (clients), batch/start-batch.ts (batches), monitoring/rescreen-run.ts
 * (runs) and policy/proposal-table.ts (policy proposals).
 */

/**
 * `SCR-YYYYMMDD-NNNNNN`; the sequence may grow past six digits on a very busy day, but never past
 * twelve (a trillion screens a day).
 */
export const SCREEN_ID_PATTERN = /^SCR-\d{8}-\d{6,12}$/;

/** `CLI-YYYYMMDD-<9 digits>-<6 hex>`. */
export const CLIENT_ID_PATTERN = /^CLI-\d{8}-\d{9}-[0-9a-f]{6}$/;

/** `BAT-YYYYMMDD-<10 hex>`. */
export const BATCH_ID_PATTERN = /^BAT-\d{8}-[0-9a-f]{10}$/;

/** `RUN-YYYYMMDD-<10 hex>`. */
export const RUN_ID_PATTERN = /^RUN-\d{8}-[0-9a-f]{10}$/;

/** `PRP-<YYYYMMDDHHMMSSmmm>-<8 hex>`: a policy proposal (lib/policy/proposal-table.ts); sorts by time. */
export const PROPOSAL_ID_PATTERN = /^PRP-\d{17}-[0-9a-f]{8}$/;

export const isScreenId = (text: string): boolean => SCREEN_ID_PATTERN.test(text);
export const isClientId = (text: string): boolean => CLIENT_ID_PATTERN.test(text);
export const isBatchId = (text: string): boolean => BATCH_ID_PATTERN.test(text);
export const isRunId = (text: string): boolean => RUN_ID_PATTERN.test(text);
export const isProposalId = (text: string): boolean => PROPOSAL_ID_PATTERN.test(text);
