/**
 * Prints the arithmetic of the limits that add up (docs/operations.md, "Limits that add up"):
 * each plan's request rate as its token bucket keeps it, and the shared limits the stack sizes
 * from the plans' sum (lib/tenancy/capacity.ts). `npm run limits`.
 */
import {
  SIZED_FOR,
  stageThrottle,
  streamConcurrency,
  WAF_WINDOW_SECONDS,
  wafRequestsPerKey,
} from '../lib/tenancy/capacity.ts';
import { PLAN_IDS, PLANS } from '../lib/tenancy/plans.ts';
import {
  mostInAnyWindow,
  RATE_WINDOW_SECONDS,
  rateLimitOf,
  steadyRate,
} from '../lib/tenancy/request-rate.ts';

const rows = PLAN_IDS.map((id) => {
  const limit = rateLimitOf(PLANS[id]);
  return [
    PLANS[id].name,
    `${limit.requests} in any ${RATE_WINDOW_SECONDS} s`,
    String(limit.burst),
    steadyRate(limit).toFixed(2),
    `${limit.intervalMicros} µs`,
    String(mostInAnyWindow(limit, 1)),
    String(mostInAnyWindow(limit, RATE_WINDOW_SECONDS)),
    String(mostInAnyWindow(limit, WAF_WINDOW_SECONDS)),
    String(PLANS[id].open_streams),
    String(SIZED_FOR[id]),
  ];
});
const header = [
  'plan',
  'stated',
  'burst',
  'steady /s',
  'T',
  'most in 1 s',
  `most in ${RATE_WINDOW_SECONDS} s`,
  `most in ${WAF_WINDOW_SECONDS} s`,
  'open streams',
  'sized for',
];
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
const stage = stageThrottle();
console.log(`\nstage throttle: rate ${stage.rateLimit}/s, burst ${stage.burstLimit}`);
console.log(
  `reserved executions: batch stream routes ${streamConcurrency('batch')}, other stream routes ${streamConcurrency(undefined)}`,
);
console.log(`WAF: per key and per IP ${wafRequestsPerKey()} requests in ${WAF_WINDOW_SECONDS} s`);
