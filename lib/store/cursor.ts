import { InvalidRequestError } from '../common/errors.ts';
import { isBatchId, isClientId, isProposalId, isRunId, isScreenId } from '../common/ids.ts';

/** `<created_at>#<id>`: the tenant-batches index's sort key. */
const createdAtThen = (isId: (text: string) => boolean) => (position: string) => {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z)#(.+)$/.exec(position);
  return match !== null && isId(match[2]);
};

/**
 * Opaque list cursors: base64url of `{ l: list, t: tenant, id: position }`, the position being
 * the sort key of the last row returned. The query key is rebuilt from the caller's own tenant,
 * so a cursor can never reach another tenant's partition; one issued to another tenant, for
 * another list, or altered is refused with 400.
 */
const POSITIONS = {
  screens: isScreenId,
  pending: isScreenId,
  'client-screens': isScreenId,
  /** GET /alerts: the screens carrying them. */
  alerts: isScreenId,
  batches: createdAtThen(isBatchId),
  runs: createdAtThen(isRunId),
  clients: isClientId,
  /** A policy proposal's id (lib/policy/proposal-table.ts). */
  proposals: isProposalId,
  /** `<time>#<subject hash>`: the activity and reviewed indexes' sort keys. */
  /** A remembered false positive's id (lib/screening/false-positive-table.ts). */
  'false-positives': (position: string) => /^[0-9a-f]{32}-[0-9a-f]{16}$/.test(position),
  /** GET /screens/{screen_id}/matches: how many of the check's further matches came before (its scope: screen and check). */
  matches: (position: string) => /^\d{1,6}$/.test(position),
  subjects: (position: string) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z#[A-Za-z0-9_-]{16,64}$/.test(position),
} as const;

export type ListName = keyof typeof POSITIONS;

interface CursorBody {
  l: string;
  t: string;
  id: string;
  /** A second list key (e.g. the risk level of a filtered client list), bound like the tenant. */
  s?: string;
}

export function encodeCursor(list: ListName, tenantId: string, position: string, scope?: string): string {
  const body: CursorBody = { l: list, t: tenantId, id: position, ...(scope ? { s: scope } : {}) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The position of the previous page's last row; throws a 400 naming `cursor` when it is not ours. */
export function decodeCursor(cursor: string, list: ListName, tenantId: string, scope?: string): string {
  const invalid = () =>
    new InvalidRequestError(
      'cursor: is not a cursor this list issued; start again without it',
      'invalid_cursor',
    );
  if (!/^[A-Za-z0-9_-]{1,1000}$/.test(cursor)) throw invalid();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { l, t, id, s } = (body ?? {}) as Partial<CursorBody>;
  if (l !== list || t !== tenantId || s !== scope || typeof id !== 'string' || !POSITIONS[list](id)) {
    throw invalid();
  }
  return id;
}
