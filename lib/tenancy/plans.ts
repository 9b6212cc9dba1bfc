/** The plans (docs/api-decisions.md#plans). `null` means unlimited. */
export interface Plan {
  id: PlanId;
  name: string;
  monthly_screens: number | null;
  analyst_seats: number | null;
  batch: boolean;
  /**
   * Fair use between tenants (lib/tenancy/limits.ts): authenticated requests per second, as a
   * token bucket (lib/tenancy/request-rate.ts): ten times this in any 10 seconds, one second's
   * worth at once.
   */
  requests_per_second: number;
  /** Streamed responses (batch streams, their re-attachment, exports) open at once. */
  open_streams: number;
}

export type PlanId = 'starter' | 'growth' | 'professional' | 'enterprise';

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  starter: {
    id: 'starter',
    name: 'Starter',
    monthly_screens: 1000,
    analyst_seats: 1,
    batch: false,
    requests_per_second: 10,
    open_streams: 2,
  },
  growth: {
    id: 'growth',
    name: 'Growth',
    monthly_screens: 5000,
    analyst_seats: 5,
    batch: true,
    requests_per_second: 20,
    open_streams: 3,
  },
  professional: {
    id: 'professional',
    name: 'Professional',
    monthly_screens: 20000,
    analyst_seats: 20,
    batch: true,
    requests_per_second: 50,
    open_streams: 5,
  },
  enterprise: {
    id: 'enterprise',
    name: 'Enterprise',
    monthly_screens: null,
    analyst_seats: null,
    batch: true,
    requests_per_second: 100,
    open_streams: 8,
  },
};

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];

export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

/** The cheapest plan that includes batch screening, named in the 403 of a plan without it. */
export const CHEAPEST_BATCH_PLAN = PLAN_IDS.map((id) => PLANS[id]).find((plan) => plan.batch)!;

/** Plan features a route can require (lib/contract/routes.ts `planFeature`). */
export type PlanFeature = 'batch';
