import type { BatchQueue } from '../queue/batch-queue.ts';
import type { Table } from '../store/table.ts';
import type { AddressPolicy, Resolver } from './address-guard.ts';
import type { Connector } from './connector.ts';
import type { SecretBox } from './secrets.ts';

/**
 * What the webhook use cases need of the outside world, built by the composition root
 * (lib/runtime/webhooks.ts); tests inject the resolver and the connector.
 */
export interface WebhookDeps {
  table: Table;
  box: SecretBox;
  /** The delivery queue (SQS; fauxqs locally): one message per event per endpoint. */
  queue: () => BatchQueue;
  policy: AddressPolicy;
  resolve: Resolver;
  connect: Connector;
  /** A receiver must answer within this (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** The waits between attempts (lib/webhooks/retry.ts); the attempts are one more. */
  retryDelaysSeconds: readonly number[];
}
