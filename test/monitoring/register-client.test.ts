/**
 * A client's registration and its claims at the store (DynamoDB Local): the claims are read
 * before the screen, and written with the client item in one transaction; a stop deletes them in
 * the transaction that stops the client. The races are made certain by holding one registration's
 * transaction until the other registration is done.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import {
  type ClaimedPerson,
  getClaim,
  legacyPersonClaim,
  personClaims,
  referenceClaim,
} from '../../lib/monitoring/client-claim-table.ts';
import { ClientExistsError, claimAllClientPersons, claimWrites } from '../../lib/monitoring/client-claims.ts';
import {
  clientsPage,
  getClientItem,
  newClientItem,
  registerClientItem,
} from '../../lib/monitoring/client-table.ts';
import { stopClient } from '../../lib/monitoring/clients-read.ts';
import { registerClient } from '../../lib/monitoring/register-client.ts';
import type { Table } from '../../lib/store/table.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { monitoredClientItem, putItems } from '../support/monitored-client.ts';

let store: TestStore;
let matcher: Matcher;
beforeAll(async () => {
  store = await startTestStore();
  matcher = createMatcher(loadSnapshot());
}, 60_000);
afterAll(async () => store.close());

const servicesOn = (table: Table, windowHours = '24') => ({
  table,
  config: readConfig({ TABLE_NAME: table.name, RESCREEN_WINDOW_HOURS: windowHours }),
  matcher: () => matcher,
});

async function freshTenant(): Promise<string> {
  const { tenant } = await createTenant(store.table, { name: 'Register clients', plan: 'enterprise' });
  return tenant.tenant_id;
}

const principalOf = (tenantId: string) => ({
  tenantId,
  userId: 'u1',
  role: 'admin' as const,
  plan: PLANS.enterprise,
});

type TransactItem = {
  Put?: { Item: Record<string, unknown> };
  Update?: { ExpressionAttributeValues: Record<string, unknown> };
};

/** The claim item naming the client of exactly this person (the first of its person claims). */
const personClaim = (tenantId: string, person: ClaimedPerson) => personClaims(tenantId, person)[0];

/**
 * The same table, except that its first transaction writing a client item waits until
 * `release()`; `reached` settles when it got there, with the items it sends.
 */
function holdRegistration(table: Table) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reach: (items: TransactItem[]) => void = () => {};
  const reached = new Promise<TransactItem[]>((resolve) => {
    reach = resolve;
  });
  let held = false;
  const doc = {
    send: async (command: { input: { TransactItems?: TransactItem[] } }) => {
      const items = command.input.TransactItems;
      if (!held && items?.some((item) => item.Put?.Item.entity === 'client')) {
        held = true;
        reach(items);
        await released;
      }
      return table.doc.send(command as never);
    },
  } as unknown as Table['doc'];
  return { table: { name: table.name, doc }, reached, release };
}

const clientIdsOf = async (tenantId: string) =>
  (await clientsPage(store.table, tenantId, undefined, undefined, 100)).clients.map((c) => c.client_id);

describe('registering a client', () => {
  it('of two registrations of one person, the one whose transaction comes second writes nothing, is 409 naming the first and is refunded', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Odile Varrenkamp', dob: '1971-03-04', nationality: 'Belgian' };
    // No rescreen window: both registrations screen afresh, and each is charged.
    const held = holdRegistration(store.table);

    const late = registerClient(servicesOn(held.table, '0'), principalOf(tenantId), {
      ...person,
      reference: 'LATE-1',
    });
    const lateItems = await held.reached;
    // The late registration read the claims free, screened and charged: now the other one runs.
    const first = await registerClient(servicesOn(store.table, '0'), principalOf(tenantId), person);
    held.release();
    const refused = await late.catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ClientExistsError);
    expect(refused).toMatchObject({
      status: 409,
      code: 'client_exists',
      holder: first.client.client_id,
      body: { existing_client_id: first.client.client_id },
      detail: expect.stringContaining(`already monitored as client ${first.client.client_id}`),
    });
    // One transaction: the client item, its reference claim, its person claims (its own, and the
    // same name with the date of birth, the nationality and both left out) and its audit entry.
    expect(
      lateItems.map((item) => item.Put?.Item.entity ?? item.Update?.ExpressionAttributeValues[':entity']),
    ).toEqual([
      'client',
      'client-ref',
      'client-person',
      'client-person',
      'client-person',
      'client-person',
      'audit-pending',
    ]);
    const lateId = lateItems[0].Put?.Item.client_id as string;
    expect(await getClientItem(store.table, tenantId, lateId, true)).toBeUndefined();
    expect(await getClaim(store.table, referenceClaim(tenantId, 'LATE-1'), true)).toBeUndefined();
    expect((await getClaim(store.table, personClaim(tenantId, person), true))?.client_id).toBe(
      first.client.client_id,
    );
    expect(await clientIdsOf(tenantId)).toEqual([first.client.client_id]);
    // Two screens were charged; the loser's came back: one screen for the one client.
    expect(await getMonthlyUsage(store.table, tenantId)).toBe(1);
  });

  it('a loser whose screen the winner reused from the rescreen window keeps it charged, once', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Bertrand Osselaere', dob: '1980-08-08' };
    const held = holdRegistration(store.table);

    const late = registerClient(servicesOn(held.table), principalOf(tenantId), person);
    const lateItems = await held.reached;
    const lateScreen = lateItems[0].Put?.Item.last_screen_id;
    // The late registration's screen is stored: the other one finds it in the window, uncharged.
    const first = await registerClient(servicesOn(store.table), principalOf(tenantId), person);
    held.release();

    await expect(late).rejects.toBeInstanceOf(ClientExistsError);
    expect(first.screen).toMatchObject({ skipped: true, screen_id: lateScreen });
    expect(first.client.last_screen_id).toBe(lateScreen);
    expect(await clientIdsOf(tenantId)).toEqual([first.client.client_id]);
    expect(await getMonthlyUsage(store.table, tenantId)).toBe(1);
  });

  it('a refused transaction writes none of its items', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Katrijn Maelbeek' };
    const holder = await registerClient(servicesOn(store.table), principalOf(tenantId), person);
    const clientId = 'CLI-20260101-000000000-abcdef';
    const stored = await getClientItem(store.table, tenantId, holder.client.client_id, true);
    if (!stored) throw new Error('the holder was not written');
    const { pk: _pk, sk: _sk, entity: _entity, ...fields } = stored;
    const client = newClientItem({ ...fields, client_id: clientId, reference: 'NEVER-1' });
    // The claims as a registration that read them before the holder was written would take them.
    const claims = [{ claim: referenceClaim(tenantId, 'NEVER-1') }, { claim: personClaim(tenantId, person) }];

    const refused = await registerClientItem(
      store.table,
      client,
      claimWrites(claims, clientId, new Date()),
    ).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ClientExistsError);
    expect((refused as ClientExistsError).holder).toBe(holder.client.client_id);
    expect(await getClientItem(store.table, tenantId, clientId, true)).toBeUndefined();
    expect(await getClaim(store.table, referenceClaim(tenantId, 'NEVER-1'), true)).toBeUndefined();
    expect((await getClaim(store.table, personClaim(tenantId, person), true))?.client_id).toBe(
      holder.client.client_id,
    );
  });

  it('a claim left by a client that was stopped or never written is replaced by the next registration', async () => {
    const tenantId = await freshTenant();
    const gone = { name: 'Maarten Dewolfs', dob: '1960-01-01' };
    const stoppedPerson = { name: 'Ilse Vanderkindere' };
    const stopped = {
      ...monitoredClientItem(
        tenantId,
        'CLI-20250101-000000000-aaaaaa',
        stoppedPerson,
        '2099-01-01T00:00:00Z',
      ),
      status: 'stopped',
    };
    await putItems(store.table, [stopped]);
    await putClaim(personClaim(tenantId, gone).key, 'CLI-20250101-000000000-bbbbbb');
    await putClaim(personClaim(tenantId, stoppedPerson).key, stopped.client_id);

    const again = await registerClient(servicesOn(store.table), principalOf(tenantId), gone);
    const alsoAgain = await registerClient(servicesOn(store.table), principalOf(tenantId), stoppedPerson);

    expect((await getClaim(store.table, personClaim(tenantId, gone), true))?.client_id).toBe(
      again.client.client_id,
    );
    expect((await getClaim(store.table, personClaim(tenantId, stoppedPerson), true))?.client_id).toBe(
      alsoAgain.client.client_id,
    );
  });
});

describe('stopping a client', () => {
  it('deletes its claims with the stop; the same person and reference register again', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Wannes Hoebeke', dob: '1975-05-05' };
    const first = await registerClient(servicesOn(store.table), principalOf(tenantId), {
      ...person,
      reference: 'W-1',
    });

    const stopped = await stopClient(store.table, principalOf(tenantId), first.client.client_id);

    expect(stopped.status).toBe('stopped');
    expect(await getClaim(store.table, referenceClaim(tenantId, 'W-1'), true)).toBeUndefined();
    expect(await getClaim(store.table, personClaim(tenantId, person), true)).toBeUndefined();
    const again = await registerClient(servicesOn(store.table), principalOf(tenantId), {
      ...person,
      reference: 'W-1',
    });
    expect(again.client.client_id).not.toBe(first.client.client_id);
    expect((await getClaim(store.table, referenceClaim(tenantId, 'W-1'), true))?.client_id).toBe(
      again.client.client_id,
    );
  });

  it('leaves a claim another client holds: a copy of a person stops without freeing the person', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Griet Lambrechts', dob: '1950-02-02' };
    const due = '2099-01-01T00:00:00Z';
    // Registered before person claims existed: the older keeps the claim, the copy is listed.
    const older = monitoredClientItem(tenantId, 'CLI-20250101-000000000-cccccc', person, due);
    const copy = monitoredClientItem(tenantId, 'CLI-20250102-000000000-dddddd', person, due);
    await putItems(store.table, [older, copy]);
    const report = await claimAllClientPersons(store.table);
    expect(report.duplicates).toContainEqual({
      tenant_id: tenantId,
      client_id: copy.client_id,
      existing_client_id: older.client_id,
    });

    expect((await stopClient(store.table, principalOf(tenantId), copy.client_id)).status).toBe('stopped');

    expect((await getClaim(store.table, personClaim(tenantId, person), true))?.client_id).toBe(
      older.client_id,
    );
    await expect(
      registerClient(servicesOn(store.table), principalOf(tenantId), person),
    ).rejects.toMatchObject({
      holder: older.client_id,
    });
  });
});

/** A claim as separate writes could leave it (its client stopped, or never written). */
async function putClaim(key: { pk: string; sk: string }, clientId: string) {
  await store.table.doc.send(
    new PutCommand({
      TableName: store.table.name,
      Item: { ...key, entity: 'client-person', client_id: clientId, claimed_at: '2025-01-01T00:00:00.000Z' },
    }),
  );
}

const register = (tenantId: string, person: ClaimedPerson) =>
  registerClient(servicesOn(store.table), principalOf(tenantId), person);
/** The error a registration is refused with, or undefined when it registers. */
const refusal = (tenantId: string, person: ClaimedPerson) =>
  register(tenantId, person).then(
    () => undefined,
    (error: unknown) => error,
  );

describe('one client per person, as the matcher reads a person', () => {
  it.each([
    ['an accent', { name: 'Noréf Registrant Qwv' }],
    ['another token order', { name: 'Qwv Noref Registrant' }],
    ['a date of birth added', { name: 'Noref Registrant Qwv', dob: '1984-06-30' }],
    ['a nationality added', { name: 'Noref Registrant Qwv', nationality: 'Belgian' }],
    ['punctuation, case and the surname first', { name: 'REGISTRANT, Noref-Qwv' }],
  ])('the same person with %s is 409 naming the client, charged nothing', async (_variant, person) => {
    const tenantId = await freshTenant();
    const existing = await register(tenantId, { name: 'Noref Registrant Qwv' });
    const usedBefore = await getMonthlyUsage(store.table, tenantId);

    const refused = await refusal(tenantId, person);

    expect(refused).toBeInstanceOf(ClientExistsError);
    expect(refused).toMatchObject({
      status: 409,
      holder: existing.client.client_id,
      body: { existing_client_id: existing.client.client_id },
      detail: expect.stringContaining(`client ${existing.client.client_id}`),
    });
    expect((refused as ClientExistsError).detail).toMatch(/DELETE \/clients\//);
    expect(await clientIdsOf(tenantId)).toEqual([existing.client.client_id]);
    expect(await getMonthlyUsage(store.table, tenantId)).toBe(usedBefore);
  });

  it.each([
    ['a date of birth left out', { name: 'Registrant Noref Qwv' }],
    ['the nationality left out', { name: 'Noref Registrant Qwv', dob: '1984-06-30' }],
    [
      'the nationality as a country code',
      { name: 'Noref Registrant Qwv', dob: '1984-06-30', nationality: 'BE' },
    ],
    [
      'the date of birth left out, the nationality kept',
      { name: 'Noref Registrant Qwv', nationality: 'Belgium' },
    ],
  ])(
    'a client known with its date of birth and nationality: %s is 409 naming it',
    async (_variant, person) => {
      const tenantId = await freshTenant();
      const existing = await register(tenantId, {
        name: 'Noref Registrant Qwv',
        dob: '1984-06-30',
        nationality: 'Belgian',
      });

      const refused = await refusal(tenantId, person);

      expect(refused).toMatchObject({ status: 409, holder: existing.client.client_id });
    },
  );

  it('a date of birth alone and a nationality alone are the same person: 409 either way round', async () => {
    const tenantId = await freshTenant();
    const withDob = await register(tenantId, { name: 'Oskar Pleunisse', dob: '1970-01-02' });

    expect(await refusal(tenantId, { name: 'Oskar Pleunisse', nationality: 'Dutch' })).toMatchObject({
      holder: withDob.client.client_id,
    });
  });

  it('another date of birth, or another nationality, is another person: both register', async () => {
    const tenantId = await freshTenant();
    const first = await register(tenantId, {
      name: 'Noref Registrant Qwv',
      dob: '1984-06-30',
      nationality: 'Belgian',
    });

    const otherDob = await register(tenantId, {
      name: 'Noref Registrant Qwv',
      dob: '1991-11-02',
      nationality: 'Belgian',
    });
    const otherNationality = await register(tenantId, {
      name: 'Noref Registrant Qwv',
      dob: '1984-06-30',
      nationality: 'French',
    });

    expect(otherDob.client.client_id).not.toBe(first.client.client_id);
    expect(otherNationality.client.client_id).not.toBe(first.client.client_id);
    expect((await clientIdsOf(tenantId)).sort()).toEqual(
      [first.client.client_id, otherDob.client.client_id, otherNationality.client.client_id].sort(),
    );
    // The name alone, or with one date of birth, may be any of them: refused.
    expect(await refusal(tenantId, { name: 'Noref Registrant Qwv' })).toBeInstanceOf(ClientExistsError);
    expect(await refusal(tenantId, { name: 'Noref Registrant Qwv', dob: '1991-11-02' })).toMatchObject({
      holder: otherDob.client.client_id,
    });
    // A date of birth none of them has, with no nationality, is another person again.
    expect(
      (await register(tenantId, { name: 'Noref Registrant Qwv', dob: '2001-01-01' })).client.status,
    ).toBe('active');
  });

  it('stopping the client frees the person: the same person with a date of birth registers', async () => {
    const tenantId = await freshTenant();
    const existing = await register(tenantId, { name: 'Noref Registrant Qwv' });
    const refused = await refusal(tenantId, { name: 'Noref Registrant Qwv', dob: '1984-06-30' });
    expect(refused).toBeInstanceOf(ClientExistsError);

    await stopClient(store.table, principalOf(tenantId), existing.client.client_id);
    const again = await register(tenantId, { name: 'Noref Registrant Qwv', dob: '1984-06-30' });

    expect(again.client.status).toBe('active');
    await stopClient(store.table, principalOf(tenantId), again.client.client_id);
    // Every claim went with the stops: the name alone, and with a nationality, register again.
    expect(
      (await register(tenantId, { name: 'Noref Registrant Qwv', nationality: 'Dutch' })).client.status,
    ).toBe('active');
  });

  it('of two concurrent registrations, one with a date of birth and one without, exactly one is written', async () => {
    const tenantId = await freshTenant();

    const outcomes = await Promise.allSettled([
      register(tenantId, { name: 'Hedwig Vanparys' }),
      register(tenantId, { name: 'Vanparys Hedwig', dob: '1966-06-06' }),
      register(tenantId, { name: 'Hedwig Vanparys', nationality: 'Belgian' }),
    ]);

    const written = outcomes.filter((o) => o.status === 'fulfilled');
    expect(written).toHaveLength(1);
    const winner = (written[0] as PromiseFulfilledResult<{ client: { client_id: string } }>).value.client
      .client_id;
    for (const lost of outcomes.filter((o) => o.status === 'rejected'))
      expect((lost as PromiseRejectedResult).reason).toMatchObject({ status: 409, holder: winner });
    expect(await clientIdsOf(tenantId)).toEqual([winner]);
  });
});

describe('person claims from before names were folded', () => {
  it('a claim of the old key still refuses the same person; the upgrade claims the folded person', async () => {
    const tenantId = await freshTenant();
    const person = { name: 'Noref Registrant Qwv', dob: '1984-06-30' };
    // A client registered when person claims were the exact normalised text: its item records none.
    const older = monitoredClientItem(
      tenantId,
      'CLI-20250101-000000000-eeeeee',
      person,
      '2099-01-01T00:00:00Z',
    );
    await putItems(store.table, [older]);
    await putClaim(legacyPersonClaim(tenantId, person).key, older.client_id);

    const sameText = await refusal(tenantId, { name: 'noref  REGISTRANT qwv', dob: '1984-06-30' });
    const report = await claimAllClientPersons(store.table);
    const accent = await refusal(tenantId, { name: 'Qwv Noréf Registrant' });

    expect(sameText).toMatchObject({ status: 409, holder: older.client_id });
    expect(report.duplicates.filter((d) => d.tenant_id === tenantId)).toEqual([]);
    expect((await getClientItem(store.table, tenantId, older.client_id, true))?.person_claims).toHaveLength(
      2,
    );
    expect(accent).toMatchObject({ status: 409, holder: older.client_id });
    // Its stop releases both the old claim and the folded ones.
    await stopClient(store.table, principalOf(tenantId), older.client_id);
    expect(await getClaim(store.table, legacyPersonClaim(tenantId, person), true)).toBeUndefined();
    expect((await register(tenantId, { name: 'Qwv Noréf Registrant' })).client.status).toBe('active');
  });
});
