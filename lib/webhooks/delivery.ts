import type { SQSRecord } from 'aws-lambda';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../common/log.ts';
import { countMetric, METRIC } from '../common/metrics.ts';
import { DONE, type JobOutcome, sqsPartialBatch } from '../queue/partial-batch.ts';
import type { Table } from '../store/table.ts';
import { sendWrite, sendWriteIf } from '../store/write.ts';
import { checkTarget, RefusedUrlError } from './address-guard.ts';
import { type DeliveryMessage, getDelivery } from './deliveries.ts';
import { type Attempt, endDelivery, recordAttempt } from './delivery-table.ts';
import type { WebhookDeps } from './deps.ts';
import { endpointOf, signingSecrets } from './endpoints.ts';
import { attemptsOf, DISABLE_AFTER_FAILING_MS } from './retry.ts';
import { recordDeadLettered, type WebhookItem, webhookWrites } from './webhook-table.ts';

/**
 * The delivery function: one SQS message is one attempt to POST one stored payload to one
 * endpoint. The URL is checked again (every address it resolves to now), the payload is signed
 * with every live secret (Standard Webhooks: `webhook-id` is the delivery id, the same on every
 * retry), and a 2xx within the timeout is success; anything else (3xx included: redirects are not
 * followed) is a failed attempt, retried after the schedule's next wait through the message's
 * visibility. The last failure dead-letters the message and marks the endpoint failing; an
 * endpoint failing for 72 hours is disabled with the reason.
 */

/** Signs a payload with each secret: one `v1,<sig>` per secret, space-separated (Standard Webhooks). */
export function signatureHeader(
  secrets: readonly string[],
  deliveryId: string,
  at: Date,
  payload: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(deliveryId, at, payload)).join(' ');
}

/** The failing-endpoints metric (lib/common/metrics.ts) and its log line. */
function failingMetric(log: Logger, endpoint: WebhookItem, disabled: boolean) {
  countMetric(METRIC.webhookEndpointsFailing);
  log.warn(
    { tenant: endpoint.tenant_id, webhook: endpoint.webhook_id, disabled },
    disabled ? 'webhook endpoint disabled after 72 hours failing' : 'webhook endpoint failing',
  );
}

async function markSucceeded(table: Table, endpoint: WebhookItem, at: string) {
  await sendWrite(table, webhookWrites.succeeded(endpoint, at)).catch(() => undefined);
}

/** A dead-lettered delivery: the endpoint is failing since its first one; 72 hours of it disable the endpoint. */
async function markFailing(table: Table, endpoint: WebhookItem, now: Date, log: Logger) {
  const at = now.toISOString();
  // failing_since may be stored as null (cleared by a success): set it now in that case.
  let since = await recordDeadLettered(table, endpoint, at);
  if (!since) {
    // Refused: the endpoint was deleted meanwhile, and there is nothing left to mark.
    if (!(await sendWriteIf(table, webhookWrites.failingSince(endpoint, at)))) return;
    since = at;
  }
  const disable = now.getTime() - new Date(since).getTime() >= DISABLE_AFTER_FAILING_MS;
  if (disable) {
    await sendWrite(
      table,
      webhookWrites.disable(
        endpoint,
        `Disabled ${at}: every delivery failed since ${since} (72 hours); the last ones are in GET /webhooks/${endpoint.webhook_id}/deliveries?outcome=failed. PATCH enabled: true to resume.`,
      ),
    ).catch(() => undefined);
  }
  failingMetric(log, endpoint, disable);
}

/** One attempt of one delivery message: done, retry after the schedule's wait, or dead-letter. */
export async function attemptDelivery(
  deps: WebhookDeps,
  message: DeliveryMessage,
  receiveCount: number,
  log: Logger,
): Promise<JobOutcome> {
  const { table } = deps;
  const delivery = await getDelivery(table, message.tenant_id, message.webhook_id, message.delivery_id);
  // Succeeded, failed, or never recorded: nothing to send.
  if (delivery?.status !== 'pending') return DONE;
  const endpoint = await endpointOf(table, message.tenant_id, message.webhook_id);
  if (!endpoint) {
    await endDelivery(table, delivery, 'The endpoint was deleted; not sent');
    return DONE;
  }
  if (!endpoint.enabled) {
    await endDelivery(
      table,
      delivery,
      `The endpoint is disabled${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}; not sent`,
    );
    return DONE;
  }
  const now = new Date();
  const started = performance.now();
  let attempt: Attempt;
  try {
    const target = await checkTarget(endpoint.url, deps.policy, deps.resolve);
    const secrets = await signingSecrets(deps, endpoint, now);
    const headers = {
      'webhook-id': delivery.delivery_id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, delivery.delivery_id, now, delivery.payload),
      'user-agent': 'screening-service-webhooks/1',
    };
    const result = await deps.connect(target, { headers, body: delivery.payload, timeoutMs: deps.timeoutMs });
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    attempt = {
      at: now.toISOString(),
      status_code: result.status,
      latency_ms: Math.round(performance.now() - started),
      outcome: ok ? 'succeeded' : 'failed',
      response_body: result.body,
      error:
        result.error ??
        (ok
          ? null
          : result.status !== null && result.status < 400 && result.status >= 300
            ? 'a redirect, not followed'
            : null),
    };
  } catch (error) {
    if (!(error instanceof RefusedUrlError)) throw error;
    // Refused before any connection: the address the host resolves to now is not public.
    attempt = {
      at: now.toISOString(),
      status_code: null,
      latency_ms: Math.round(performance.now() - started),
      outcome: 'refused',
      response_body: '',
      error: error.message,
    };
  }
  const maxAttempts = attemptsOf(deps.retryDelaysSeconds);
  if (attempt.outcome === 'succeeded') {
    await recordAttempt(table, delivery, attempt, 'succeeded', null);
    await markSucceeded(table, endpoint, attempt.at);
    return DONE;
  }
  countMetric(METRIC.webhookDeliveriesFailed);
  const last = receiveCount >= maxAttempts;
  await recordAttempt(
    table,
    delivery,
    attempt,
    last ? 'failed' : 'pending',
    last ? `Failed ${receiveCount} attempts; moved to the dead-letter queue` : null,
  );
  if (last) {
    await markFailing(table, endpoint, now, log);
    return { status: 'dead-letter' };
  }
  return { status: 'retry', afterSeconds: deps.retryDelaysSeconds[receiveCount - 1] ?? 0 };
}

/** The SQS handler of the delivery function (the batch worker's partial-batch adapter). */
export function deliveryHandler(
  deps: () => WebhookDeps,
  setVisibility: (record: SQSRecord, seconds: number) => Promise<void>,
  log: Logger,
) {
  return sqsPartialBatch(
    async (body, delivery) =>
      attemptDelivery(deps(), JSON.parse(body) as DeliveryMessage, delivery.receiveCount, log),
    {
      maxReceiveCount: attemptsOf(deps().retryDelaysSeconds),
      retryDelaySeconds: (receiveCount) => deps().retryDelaysSeconds[receiveCount - 1] ?? 0,
      setVisibility,
      log,
    },
  );
}
