import { afterAll, beforeAll } from 'vitest';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { Principal } from '../../lib/tenancy/auth.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { startTestStore, type TestStore } from './dynamo.ts';

/** A user of an Enterprise tenant as the use cases take one (no stored tenant or user needed). */
export function enterprisePrincipal(tenantId: string, userId: string, role: 'admin' | 'analyst'): Principal {
  return {
    tenantId,
    tenantName: tenantId,
    userId,
    userName: userId,
    role,
    plan: PLANS.enterprise,
    keyLineage: [],
  };
}

/**
 * A fresh table of its own on the run's DynamoDB Local and the matcher on the shipped lists, made
 * before the file's tests and closed after them: `const local = useStoreWithMatcher();`.
 */
export function useStoreWithMatcher(): { store: TestStore; matcher: Matcher } {
  const local = {} as { store: TestStore; matcher: Matcher };
  beforeAll(async () => {
    local.store = await startTestStore();
    local.matcher = createMatcher(loadSnapshot());
  }, 60_000);
  afterAll(async () => local.store?.close());
  return local;
}
