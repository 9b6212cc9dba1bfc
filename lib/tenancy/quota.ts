import { AsyncLocalStorage } from 'node:async_hooks';
import { QuotaExceededError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { charge, readUsage, refund, usageMonth } from './usage-table.ts';

/**
 * The usage counts a request has already read or written, by tenant and month, so that its
 * response's quota headers need no read of their own when the request charged, refunded or read
 * the usage item anyway (see lib/http/quota-headers.ts).
 */
export type UsageSeen = Map<string, number>;

const usageSeen = new AsyncLocalStorage<UsageSeen>();

/** Runs `work` recording into `seen` every usage count the quota code reads or writes meanwhile. */
export function recordingUsage<T>(seen: UsageSeen, work: () => T): T {
  return usageSeen.run(seen, work);
}

const seenKey = (tenantId: string, month: string) => `${tenantId}#${month}`;

export function noteUsage(tenantId: string, at: Date, used: number): void {
  usageSeen.getStore()?.set(seenKey(tenantId, usageMonth(at)), used);
}

export function usageAlreadySeen(seen: UsageSeen, tenantId: string, at: Date): number | undefined {
  return seen.get(seenKey(tenantId, usageMonth(at)));
}

export async function getMonthlyUsage(
  table: Table,
  tenantId: string,
  at: Date = new Date(),
): Promise<number> {
  const used = await readUsage(table, tenantId, at);
  noteUsage(tenantId, at, used);
  return used;
}

/**
 * Notes the usage count of a charge the quota refused (QuotaExceededError carries it) before the
 * refusal goes on; any other error goes on as it is.
 */
export function noteRefusedCharge(tenantId: string, at: Date, error: unknown): never {
  if (error instanceof QuotaExceededError) noteUsage(tenantId, at, error.used);
  throw error;
}

/**
 * Charges `count` screens to this month's counter in one conditional write: the increment only
 * happens while used + count stays within the limit, so concurrent requests can never push usage
 * past the plan. `limit` null is unlimited (Enterprise). Throws QuotaExceededError with the
 * counts the 429 reports.
 */
export async function chargeScreens(
  table: Table,
  tenantId: string,
  count: number,
  limit: number | null,
  at: Date = new Date(),
): Promise<number> {
  const used = await charge(table, tenantId, count, limit, at).catch((error: unknown) =>
    noteRefusedCharge(tenantId, at, error),
  );
  noteUsage(tenantId, at, used);
  return used;
}

/**
 * Gives back screens charged for work that then failed, so a failed screen is never billed.
 * Refunds never take the counter below zero.
 */
export async function refundScreens(table: Table, tenantId: string, count: number, at: Date = new Date()) {
  if (count <= 0) return;
  const used = await refund(table, tenantId, count, at);
  if (used !== undefined) noteUsage(tenantId, at, used);
}
