import { isoDay } from '../common/time.ts';
import type { Table } from '../store/table.ts';
import { noteRefusedCharge, noteUsage } from '../tenancy/quota.ts';
import {
  numberScreen as numberOnUsage,
  reserveScreenNumbers as reserveOnUsage,
} from '../tenancy/usage-table.ts';

/** The UTC day of a screen id: `20250314` for 2025-03-14. */
export function screenDay(at: Date): string {
  return isoDay(at).replaceAll('-', '');
}

export function formatScreenId(day: string, sequence: number): string {
  return `SCR-${day}-${String(sequence).padStart(6, '0')}`;
}

/**
 * Numbers a new screen and, when `charge` is given, charges it against the monthly quota, in ONE
 * write: the tenant's monthly usage item also carries the day's screen counter (`seq_YYYYMMDD`).
 * Concurrent screens never share an id, ids sort by the time they were numbered, usage never
 * passes the plan's limit (the same condition as chargeScreens), and a screen refused with
 * QuotaExceededError consumes no id. `charge.limit` null is unlimited (Enterprise).
 *
 * One write instead of two matters: every screen of a tenant touches this item, and a single
 * hot item's writes are serialised by the store.
 */
export async function numberScreen(
  table: Table,
  tenantId: string,
  at: Date,
  charge?: { limit: number | null },
): Promise<string> {
  const day = screenDay(at);
  const numbered = await numberOnUsage(table, tenantId, at, day, charge).catch((error: unknown) =>
    noteRefusedCharge(tenantId, at, error),
  );
  if (charge) noteUsage(tenantId, at, numbered.used as number);
  return formatScreenId(day, numbered.sequence);
}

/** A run of screen numbers drawn at once for a batch: subject `i` is numbered `first + i`. */
export interface ScreenNumberBlock {
  day: string;
  first: number;
}

/**
 * Draws `count` consecutive screen numbers of the day in one write (the same counter numberScreen
 * draws from, so ids never collide): a batch numbers its subjects when it is accepted, and each
 * queued subject's screen id is then known before it is screened. That saves the worker a write
 * per subject, and makes a retried subject find its own screen by id. Numbers of subjects that
 * end up cached or failed stay unused (ids have gaps, as they do when a window race is lost).
 */
export async function reserveScreenNumbers(
  table: Table,
  tenantId: string,
  at: Date,
  count: number,
): Promise<ScreenNumberBlock> {
  const day = screenDay(at);
  return { day, first: await reserveOnUsage(table, tenantId, at, day, count) };
}

/** The screen id a block gives the subject at `index`. */
export function blockScreenId(block: ScreenNumberBlock, index: number): string {
  return formatScreenId(block.day, block.first + index);
}
