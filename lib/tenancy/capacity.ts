import { PLAN_IDS, PLANS, type PlanFeature, type PlanId } from './plans.ts';
import { mostInAnyWindow, rateLimitOf, steadyRate } from './request-rate.ts';

/**
 * The shared limits of a deployment, sized from the plans' sum (docs/operations.md, "Limits that
 * add up"): the stack (infra/cdk) reads them, so the stage throttle, each stream function's
 * reserved executions and the WAF's rate rules are what the tenants it is sized for can use at
 * once, every one of them at its plan's limits, and never less than one tenant of the largest plan
 * can use alone. Each tenant is held to its own plan by the service (lib/tenancy/limits.ts: the
 * request rate and the open streams), so one tenant can never take more than its share; the shared
 * limits are what all of them take together.
 */

/** How many tenants of each plan a deployment is sized for. */
export type TenantMix = Readonly<Record<PlanId, number>>;

/**
 * The mix a deployment is sized for by default. More tenants than this, all at their plans'
 * limits at once, could meet a shared limit: onboarding past it means raising these numbers and
 * deploying (docs/operations.md says how far the account's quotas allow).
 */
export const SIZED_FOR: TenantMix = { starter: 20, growth: 10, professional: 5, enterprise: 3 };

/**
 * The HTTP API stage's throttle (a token bucket too): the steady rates of every tenant's bucket
 * added up, and their bursts added up, so the tenants' buckets all emptying at once still fit in
 * the stage's. Unauthenticated requests (health, the reference, refused keys) are not in it: the
 * WAF's per-IP rules hold those.
 */
export function stageThrottle(mix: TenantMix = SIZED_FOR): { rateLimit: number; burstLimit: number } {
  let rate = 0;
  let burst = 0;
  for (const id of PLAN_IDS) {
    const limit = rateLimitOf(PLANS[id]);
    rate += mix[id] * steadyRate(limit);
    burst += mix[id] * limit.burst;
  }
  return { rateLimit: Math.ceil(rate), burstLimit: burst };
}

/**
 * The reserved concurrent executions of one stream function: every open stream the tenants that
 * may call it can hold (`open_streams` of each plan that has the route's feature), since all of a
 * tenant's streams may be on the same route.
 */
export function streamConcurrency(feature: PlanFeature | undefined, mix: TenantMix = SIZED_FOR): number {
  return PLAN_IDS.filter((id) => feature === undefined || PLANS[id][feature]).reduce(
    (sum, id) => sum + mix[id] * PLANS[id].open_streams,
    0,
  );
}

/** WAF's rate-based rules count requests over this window (seconds). */
export const WAF_WINDOW_SECONDS = 300;

/**
 * The most requests one API key may send in WAF's window before WAF blocks it: what the largest
 * plan admits in that window (its burst and refill), so WAF never blocks what the service would
 * admit and stops a key that keeps sending past its 429s. It is also the per-IP limit of requests
 * that carry a key: a tenant's servers may all call from one address.
 */
export function wafRequestsPerKey(): number {
  return Math.max(...PLAN_IDS.map((id) => mostInAnyWindow(rateLimitOf(PLANS[id]), WAF_WINDOW_SECONDS)));
}
