import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';

/**
 * Makes a stored screen say what a screen taken before its subject was listed would have said
 * (CLEAR, no sanctions, PEP or criminal matches), so the next re-screen of its client finds a new match and
 * raises an alert.
 */
export async function screenBeforeListing(tenantId: string, screenId: string): Promise<void> {
  const { table } = getServices();
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.screen(tenantId, screenId) }),
  );
  const empty = { risk_level: 'CLEAR', matches: [], narrative: 'No matches.' };
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: {
        ...Item,
        risk_level: 'CLEAR',
        sanctions_result: { ...Item?.sanctions_result, ...empty, is_sanctioned: false },
        pep_result: Item?.pep_result ? { ...Item.pep_result, ...empty, is_pep: false } : null,
        criminal_result: Item?.criminal_result
          ? { ...Item.criminal_result, risk_level: 'CLEAR', interpol_hits: [], fbi_hits: [] }
          : null,
      },
    }),
  );
}

/** The POST half of the black-box API client (test/support/api-client.ts). */
interface Poster {
  post: (path: string, key: string | undefined, body?: unknown) => Promise<{ body: unknown }>;
}

/**
 * A client of a listed person (re-screened every day) whose registration screen predates the
 * listing: its next re-screen raises an alert.
 */
export async function clientListedAfterRegistration(
  api: Poster,
  tenantId: string,
  key: string,
): Promise<{ client_id: string; last_screen_id: string }> {
  const registered = (
    await api.post('/clients', key, {
      name: 'Vladimir Putin',
      dob: '1952-10-07',
      types: 'sanctions,pep',
      rescreen_interval_days: 1,
    })
  ).body as { client_id: string; last_screen_id: string };
  await screenBeforeListing(tenantId, registered.last_screen_id);
  return registered;
}
