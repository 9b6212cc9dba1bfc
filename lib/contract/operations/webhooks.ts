import { DeliveriesQuerySchema } from '../../webhooks/deliveries.ts';
import { CreateWebhookSchema, RotateSecretSchema, UpdateWebhookSchema } from '../../webhooks/endpoints.ts';
import {
  DeliveryListSchema,
  DeliveryReplayedSchema,
  WebhookDeletedSchema,
  WebhookListSchema,
  WebhookOneSchema,
  WebhookRotatedSchema,
  WebhookTestSchema,
  WebhookWithSecretSchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { accepted, adminsOnly, created, json, notFound, type Operation, requestExample } from './shared.ts';

/** The contract of the webhook routes (lib/contract/operations.ts); the events are the document's `webhooks`. */
export const webhooksOperations = {
  'webhook-create': {
    body: CreateWebhookSchema,
    // A receiver on this machine, which `npm start` allows (WEBHOOK_ALLOW_LOOPBACK); a deployment
    // takes only https URLs of public hosts.
    requestExample: requestExample(CreateWebhookSchema, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['monitoring.alert', 'screen.approved'],
      description: 'Case system',
    }),
    success: created(WebhookWithSecretSchema, 'The endpoint, with its signing secret shown this once'),
    errors: {
      400: 'A URL that is not https, or that resolves to a private, loopback, link-local or reserved address; an unknown event type',
      ...adminsOnly,
      409: 'The plan’s cap on endpoints is reached',
    },
  },
  'webhooks-list': { success: json(WebhookListSchema, 'The tenant’s endpoints'), errors: adminsOnly },
  'webhook-get': {
    success: json(WebhookOneSchema, 'The endpoint'),
    errors: { ...adminsOnly, ...notFound('webhook') },
  },
  'webhook-update': {
    body: UpdateWebhookSchema,
    requestExample: requestExample(UpdateWebhookSchema, { description: 'Case system (primary)' }),
    success: json(WebhookOneSchema, 'The endpoint as changed'),
    errors: {
      400: 'Nothing to change, or a URL refused as at registration',
      ...adminsOnly,
      ...notFound('webhook'),
      409: 'The endpoint changed meanwhile',
    },
  },
  'webhook-delete': {
    success: json(WebhookDeletedSchema, 'The endpoint is deleted; deliveries still queued to it end unsent'),
    errors: { ...adminsOnly, ...notFound('webhook') },
  },
  'webhook-rotate-secret': {
    body: RotateSecretSchema,
    requestExample: requestExample(RotateSecretSchema, { overlap_hours: 24 }),
    success: json(WebhookRotatedSchema, 'The new secret, shown this once; both sign during the overlap'),
    errors: {
      400: 'An overlap outside 0 to 168 hours',
      ...adminsOnly,
      ...notFound('webhook'),
      409: 'The endpoint changed meanwhile',
    },
  },
  'webhook-test': {
    success: accepted(WebhookTestSchema, 'A webhook.test event is queued to the endpoint'),
    errors: { ...adminsOnly, ...notFound('webhook') },
  },
  'webhook-deliveries': {
    query: DeliveriesQuerySchema,
    success: json(DeliveryListSchema, 'The endpoint’s deliveries, newest first, with every attempt'),
    errors: {
      400: 'An unknown event type or outcome, or a limit outside 1 to 200',
      ...adminsOnly,
      ...notFound('webhook'),
    },
  },
  'webhook-replay': {
    success: accepted(DeliveryReplayedSchema, 'The delivery is queued again'),
    errors: { ...adminsOnly, 404: 'No such webhook or delivery in the caller’s tenant' },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
