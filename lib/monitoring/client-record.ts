import { createHash, randomBytes } from 'node:crypto';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import type { RiskLevel } from '../matcher/types.ts';
import type { ClientItem } from './client-table.ts';

/**
 * A registered client: one subject the tenant keeps under ongoing monitoring. Its screens are
 * ordinary screens (origin `client_registration` or `rescreen`, carrying the client id); the
 * client item (client-table.ts) holds the profile, the latest outcome and when it is next due.
 */

/**
 * Default days between re-screens, by the latest risk level: the riskier the last outcome, the
 * sooner it is looked at again. A sanctions or high-confidence hit is re-checked weekly, a
 * partial match monthly, a clean or weak result quarterly (the cadence banks commonly apply to
 * high, medium and low risk customers). `rescreen_interval_days` on the client overrides it.
 */
export const DEFAULT_RESCREEN_DAYS: Record<RiskLevel, number> = {
  CRITICAL: 7,
  HIGH: 7,
  MEDIUM: 30,
  LOW: 90,
  CLEAR: 90,
};

/** How long a claim holds a client before another run may take it (the worker's retries fit in it). */
export const RUN_CLAIM_LEASE_MS = 60 * 60_000;

export type ClientStatus = 'active' | 'stopped';

export const SYSTEM_ACTOR = { user_id: 'system', role: 'system' } as const;

/** `CLI-YYYYMMDD-hhmmssSSS-<6 hex>`: ids sort by registration time, so lists read newest first. */
export function newClientId(at: Date, suffix = randomBytes(3).toString('hex')): string {
  const stamp = at.toISOString().replace(/[-:T.Z]/g, '');
  return `CLI-${stamp.slice(0, 8)}-${stamp.slice(8, 17)}-${suffix}`;
}

/**
 * The client id of the subject at `index` of a client-registration batch: the same on every
 * attempt of that subject's job, so a retry after the client was written finds its own client
 * (and reference) instead of registering the subject twice or refusing it as a duplicate. The
 * time part is the batch's time plus the index in milliseconds (distinct within the batch, in
 * subject order); the suffix comes from the batch id.
 */
export function queuedClientId(batchCreatedAt: string, batchId: string, index: number): string {
  const suffix = createHash('sha256').update(batchId).digest('hex').slice(0, 6);
  return newClientId(new Date(Date.parse(batchCreatedAt) + index), suffix);
}

export function effectiveIntervalDays(
  client: Pick<ClientItem, 'rescreen_interval_days' | 'risk_level'>,
): number {
  return client.rescreen_interval_days ?? DEFAULT_RESCREEN_DAYS[client.risk_level];
}

export function nextDueAt(screenedAt: string, intervalDays: number): string {
  return isoSeconds(new Date(Date.parse(screenedAt) + intervalDays * DAY_MS));
}

/** The client profile as the API shows it. */
export interface ClientProfile {
  client_id: string;
  reference: string | null;
  subject: ClientItem['subject'];
  types: ClientItem['types'];
  status: ClientStatus;
  created_at: string;
  created_by: ClientItem['created_by'];
  last_screen_id: string;
  last_screened_at: string;
  risk_level: RiskLevel;
  /** The interval in force: the client's own, or the default for its risk level. */
  rescreen_interval_days: number;
  /** Whether `rescreen_interval_days` is the client's own (true) or the risk-level default. */
  rescreen_interval_custom: boolean;
  /** null once monitoring has stopped. */
  next_due_at: string | null;
  stopped_at?: string;
  stopped_by?: ClientItem['stopped_by'];
}

export function toClientProfile(item: ClientItem): ClientProfile {
  return {
    client_id: item.client_id,
    reference: item.reference,
    subject: item.subject,
    types: item.types,
    status: item.status,
    created_at: item.created_at,
    created_by: item.created_by,
    last_screen_id: item.last_screen_id,
    last_screened_at: item.last_screened_at,
    risk_level: item.risk_level,
    rescreen_interval_days: effectiveIntervalDays(item),
    rescreen_interval_custom: item.rescreen_interval_days !== null,
    next_due_at: item.status === 'active' ? item.next_due_at : null,
    ...(item.stopped_at ? { stopped_at: item.stopped_at, stopped_by: item.stopped_by } : {}),
  };
}
