import * as v from 'valibot';
import { auditedCommit, type CommitAudited } from '../audit/trail.ts';
import { subjectList } from '../batch/request.ts';
import { outcomeOf, type QueuedScreen, type SubjectScreener } from '../batch/worker.ts';
import { ConflictError } from '../common/errors.ts';
import { objectMessage, optionalWholeNumber, strictBody } from '../common/fields.ts';
import { logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import type { Services } from '../ports.ts';
import { checkTypesField, subjectFields } from '../screening/request.ts';
import type { Actor } from '../screening/screen-record.ts';
import { type ScreeningPrincipal, type ScreenResult, screenSubject } from '../screening/screen-subject.ts';
import { adoptScreenForClient } from '../screening/screen-table.ts';
import type { Subject } from '../screening/subject.ts';
import type { Table } from '../store/table.ts';
import { refundScreens } from '../tenancy/quota.ts';
import type { CheckType } from '../watchlists/types.ts';
import { ClientExistsError, claimWrites, freeClaimsOf, heldPersonClaims } from './client-claims.ts';
import { updateClientNameKeys } from './client-name-keys.ts';
import {
  type ClientProfile,
  effectiveIntervalDays,
  newClientId,
  nextDueAt,
  queuedClientId,
  toClientProfile,
} from './client-record.ts';
import { findClient, getClientItem, newClientItem, registerClientItem } from './client-table.ts';

export const REFERENCE_MAX_LENGTH = 128;

/** The tenant's own customer id: 1 to 128 printable characters, unique within the tenant. */
export const referenceField = v.pipe(
  v.nullish(
    v.pipe(
      v.string('must be a string (your own customer id)'),
      v.trim(),
      v.minLength(1, 'must not be blank'),
      v.maxLength(REFERENCE_MAX_LENGTH, `must be at most ${REFERENCE_MAX_LENGTH} characters`),
      v.regex(/^[^\p{Cc}\p{Cf}]+$/u, 'must not contain control characters'),
    ),
  ),
  v.description(
    `Optional: your own customer id, 1 to ${REFERENCE_MAX_LENGTH} characters, unique within your tenant`,
  ),
  v.transform((value) => value ?? undefined),
);

/** Days between re-screens, overriding the risk-level default. */
export const rescreenIntervalField = optionalWholeNumber(
  1,
  365,
  {
    type: 'must be a whole number of days from 1 to 365',
    min: 'must be at least 1 (day)',
    max: 'must be at most 365 (days)',
  },
  'Optional: days between re-screens, 1 to 365; default by risk level',
);

/** The fields a client registration adds to a subject (POST /clients, batch client subjects). */
export const clientFields = {
  ...subjectFields,
  reference: referenceField,
  rescreen_interval_days: rescreenIntervalField,
};

/** Body of POST /clients: the subject, `types`, and the monitoring settings. */
export const ClientRequestSchema = strictBody({ ...clientFields, types: checkTypesField });

export type ClientRequest = v.InferOutput<typeof ClientRequestSchema>;

/**
 * Body of POST /batch/clients/stream: POST /batch/stream's, with each subject's client fields.
 * A reference may appear once per request (a repeat would be refused by the second
 * registration anyway; saying so up front costs the tenant nothing).
 */
export const BatchClientsRequestSchema = v.strictObject(
  {
    subjects: v.pipe(
      subjectList(v.strictObject(clientFields, objectMessage)),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const seen = new Map<string, number>();
        dataset.value.forEach((subject, index) => {
          if (!subject.reference) return;
          const first = seen.get(subject.reference);
          if (first === undefined) seen.set(subject.reference, index);
          else
            addIssue({
              message: `repeats the reference of subjects[${first}]`,
              path: [
                { type: 'array', origin: 'value', input: dataset.value, key: index, value: subject },
                {
                  type: 'object',
                  origin: 'value',
                  input: subject,
                  key: 'reference',
                  value: subject.reference,
                },
              ],
            });
        });
      }),
    ),
    types: checkTypesField,
  },
  objectMessage,
);

export interface ClientRegistration extends Subject {
  types?: readonly CheckType[];
  reference?: string;
  rescreen_interval_days?: number;
}

export interface RegisterOptions {
  /** Charge the screen (default true); the batch route charged the whole batch up front. */
  charge?: boolean;
  /** The queued job registering it (batch client registration), and its drawn id: see screenSubject. */
  queued?: QueuedScreen;
  /**
   * The client id to register under, the same on every attempt of a queued job (queuedClientId):
   * an attempt that finds the reference, screen or client already written under it by an earlier
   * attempt carries on from there.
   */
  clientId?: string;
  at?: Date;
}

/**
 * Registers a client (POST /clients, each subject of POST /batch/clients/stream), recorded in the
 * tenant's audit trail (lib/audit/trail.ts `auditedCommit`): one `done` entry with the check types
 * asked for (never the subject's name or date of birth), the new client, its first screen and
 * risk level, written in the same transaction as the client and its claims; or one `refused`
 * entry (a reference or the person already registered, the quota), with nothing written.
 */
export async function registerClient(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  principal: ScreeningPrincipal,
  input: ClientRegistration,
  options: RegisterOptions = {},
): Promise<{ client: ClientProfile; screen: ScreenResult }> {
  return auditedCommit(
    services.table,
    principal.tenantId,
    {
      action: 'client.register',
      actor: { user_id: principal.userId, role: principal.role },
      target: options.clientId ? { client_id: options.clientId } : {},
      details: {
        types: input.types?.join(',') ?? null,
        with_reference: Boolean(input.reference),
        charged: options.charge ?? true,
      },
    },
    (commit) => registerMonitoredClient(services, principal, input, options, commit),
  );
}

/**
 * POST /clients (and each subject of POST /batch/clients/stream): registers one subject for
 * ongoing monitoring and screens it at once under the rules of POST /screen: a result inside
 * the rescreen window is reused and not charged; at the quota limit the 429 leaves no client.
 *
 * (1) The reference and person claims are read (client-claims.ts): either held by another active
 * client is a 409 naming it before anything is screened or charged. (2) The subject is screened
 * (charged, or reused from the rescreen window). (3) The client item and its claims are written in
 * one transaction, all or nothing: a registration of the same reference or person that won the
 * race since (1) refuses it, and this one writes nothing, gives back its charge and is the same
 * 409 naming the winner. A failure at (2) or (3) leaves no claim behind.
 */
async function registerMonitoredClient(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  principal: ScreeningPrincipal,
  input: ClientRegistration,
  options: RegisterOptions,
  commit: CommitAudited,
): Promise<{ client: ClientProfile; screen: ScreenResult }> {
  const { table } = services;
  const at = options.at ?? new Date();
  const clientId = options.clientId ?? newClientId(at);
  const reference = input.reference;
  const charge = options.charge ?? true;
  const claims = await freeClaimsOf(table, {
    tenantId: principal.tenantId,
    clientId,
    reference,
    subject: input,
  });

  const screen = await screenSubject(
    services,
    principal,
    {
      name: input.name,
      dob: input.dob,
      nationality: input.nationality,
      location: input.location,
      alias: input.alias,
      types: input.types,
    },
    {
      charge,
      at,
      origin: 'client_registration',
      clientId,
      jobRef: options.queued?.jobRef,
      screenId: options.queued?.screenId,
    },
  );

  const createdBy: Actor = { user_id: principal.userId, role: principal.role };
  const interval = input.rescreen_interval_days ?? null;
  const dueAt = nextDueAt(
    screen.screened_at,
    effectiveIntervalDays({ rescreen_interval_days: interval, risk_level: screen.risk_level }),
  );
  const client = newClientItem({
    tenant_id: principal.tenantId,
    client_id: clientId,
    reference: reference ?? null,
    subject: screen.subject,
    types: screen.types,
    status: 'active',
    created_at: screen.skipped ? isoSeconds(at) : screen.screened_at,
    created_by: createdBy,
    last_screen_id: screen.screen_id,
    last_screened_at: screen.screened_at,
    risk_level: screen.risk_level,
    rescreen_interval_days: interval,
    next_due_at: dueAt,
    person_claims: heldPersonClaims(claims),
  });
  // Filed under its name keys before it is written, so a list change that could match it
  // rescreens it at once. The name keys are a partition of ids outside the tenant's, a separate
  // write ahead of the transaction: a registration that then fails leaves ids that name no client,
  // which is harmless (the delta rescreen reads the client and finds none).
  await updateClientNameKeys(
    table,
    { tenantId: principal.tenantId, clientId, subject: screen.subject },
    'file',
  );
  try {
    // The client, its claims and its `done` entry: one transaction.
    await registerClientItem(table, client, claimWrites(claims, clientId, at), (writes) =>
      commit(writes, {
        target: { client_id: clientId, screen_id: screen.screen_id },
        details: { risk_level: screen.risk_level },
      }),
    );
  } catch (error) {
    if (error instanceof ClientExistsError) {
      error.chargeStands = await screenTakenByWinner(table, principal.tenantId, screen, error.holder);
      if (charge && !screen.skipped && !error.chargeStands)
        await refundScreens(table, principal.tenantId, 1, at);
      throw error;
    }
    // An earlier attempt of the same queued job wrote this client: it stands.
    const earlier =
      options.clientId &&
      error instanceof ConflictError &&
      (await findClient(table, principal.tenantId, clientId));
    if (!earlier) throw error;
    await adoptFirstScreen(table, principal.tenantId, screen, clientId);
    return { client: toClientProfile(earlier), screen };
  }
  await adoptFirstScreen(table, principal.tenantId, screen, clientId);
  return { client: toClientProfile(client), screen };
}

/**
 * A registration that reused a screen from the rescreen window: that screen becomes the client's
 * first screen too (listed under the client), unless it already belongs to another. Written once
 * the client is, so a registration that lost the race adopts nothing; a failure here leaves the
 * registered client as it is (its `last_screen_id` names the screen), the screen not listed.
 */
async function adoptFirstScreen(
  table: Table,
  tenantId: string,
  screen: ScreenResult,
  clientId: string,
): Promise<void> {
  if (!screen.skipped) return;
  await adoptScreenForClient(table, tenantId, screen.screen_id, clientId).catch((error: unknown) =>
    logger.error(
      { err: error, tenant: tenantId, clientId, screenId: screen.screen_id },
      'first screen not adopted',
    ),
  );
}

/**
 * True when the registration that won the race for the claims registered with this very screen
 * (reused from the rescreen window): it is then the winner's first screen, charged once, by the
 * loser, so the loser's charge stands (POST /clients) and its batch does not refund it either
 * (`chargeStands`, lib/batch/worker.ts). Otherwise the loser gives its charge back.
 */
async function screenTakenByWinner(
  table: Table,
  tenantId: string,
  screen: ScreenResult,
  holder: string | undefined,
): Promise<boolean> {
  if (screen.skipped || !holder) return false;
  return (await getClientItem(table, tenantId, holder, true))?.last_screen_id === screen.screen_id;
}

/**
 * A subject of POST /batch/clients/stream (batch purpose `register-clients`): registered like
 * POST /clients, never charged here (the batch was). A reference already registered is a 409,
 * as is the same person as a monitored client, which the worker records as the subject's `error`
 * event and refunds.
 */
export const registerQueuedClient: SubjectScreener = async (services, principal, subject, batch, queued) => {
  const { client, screen } = await registerClient(
    services,
    principal,
    { ...subject, types: batch.types },
    { charge: false, queued, clientId: queuedClientId(batch.created_at, batch.batch_id, queued.index) },
  );
  return { ...outcomeOf(screen), client_id: client.client_id };
};
