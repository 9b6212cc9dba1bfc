import { InvalidRequestError } from '../errors.ts';
import { isScreenId } from './screen-id.ts';

/**
 * Opaque list cursors: base64url of `{ l: list, t: tenant, id: last screen id }`. The query key
 * is rebuilt from the caller's own tenant, so a cursor can never reach another tenant's
 * partition; one issued to another tenant, for another list, or altered is refused with 400.
 */
export type ListName = 'screens' | 'pending';

interface CursorBody {
  l: ListName;
  t: string;
  id: string;
}

export function encodeCursor(list: ListName, tenantId: string, lastScreenId: string): string {
  const body: CursorBody = { l: list, t: tenantId, id: lastScreenId };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The last screen id of the previous page; throws a 400 naming `cursor` when it is not ours. */
export function decodeCursor(cursor: string, list: ListName, tenantId: string): string {
  const invalid = () =>
    new InvalidRequestError('cursor: is not a cursor this list issued; start again without it');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { l, t, id } = (body ?? {}) as Partial<CursorBody>;
  if (l !== list || t !== tenantId || typeof id !== 'string' || !isScreenId(id)) throw invalid();
  return id;
}
