import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import { type PolicyBody, SERVICE_POLICY } from '../../lib/policy/policy.ts';
import { proposePolicy, readProposal } from '../../lib/policy/policy-proposals.ts';
import { type PolicySandboxJob, PolicySandboxJobSchema } from '../../lib/policy/sandbox-job.ts';
import type { BatchQueue } from '../../lib/queue/batch-queue.ts';
import { runSandbox } from '../../lib/screening/policy-sandbox.ts';
import { runSandboxStep } from '../../lib/screening/policy-sandbox-job.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { findScreen } from '../../lib/screening/screen-table.ts';
import { enterprisePrincipal, useStoreWithMatcher } from '../support/enterprise-principal.ts';

/**
 * Issue 40, item 2: the sandbox of a proposal as a queued job, in steps. Each step records the
 * progress and the report so far on the proposal and queues the next; a redelivered step writes
 * nothing and counts nothing twice; the report of a history replayed in many steps is the report
 * of one pass. On DynamoDB Local with the real matcher and the shipped lists.
 */
const local = useStoreWithMatcher();

/** A queue that keeps what is sent, for the test to deliver. */
function heldQueue() {
  const sent: PolicySandboxJob[] = [];
  const queue: BatchQueue = {
    queueUrl: 'held',
    sendAll: async (bodies) => {
      for (const body of bodies) sent.push(v.parse(PolicySandboxJobSchema, JSON.parse(body)));
      return { failed: [] };
    },
    retryAfter: async () => undefined,
  };
  return { sent, queue };
}

const PROPOSED: PolicyBody = {
  ...SERVICE_POLICY,
  screening: { ...SERVICE_POLICY.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
};

describe('the sandbox job', () => {
  it('replays the period in steps, each recorded, a redelivered step counting nothing twice, to the report of one pass', async () => {
    const tenantId = 'tproposal-steps';
    const analyst = enterprisePrincipal(tenantId, 'u-analyst', 'analyst');
    const admin = enterprisePrincipal(tenantId, 'u-admin', 'admin');
    const held = heldQueue();
    const services = {
      table: local.store.table,
      config: readConfig({ TABLE_NAME: local.store.table.name, RESCREEN_WINDOW_HOURS: '0' }),
      matcher: () => local.matcher,
      batchQueue: () => held.queue,
    };
    const names = ['Olaf Scholz', 'Joe Biden', 'Kim Jong Un', 'Emmanuel Macron', 'Jane Quillonby'];
    const history = [];
    for (const [i, name] of names.entries()) {
      const screen = await screenSubject(services, analyst, { name });
      if (i === 0)
        await disposeScreen(
          local.store.table,
          analyst,
          screen.screen_id,
          v.parse(DisposeRequestSchema, { disposition: 'confirmed_hit' }),
        );
      history.push((await findScreen(local.store.table, tenantId, screen.screen_id))!);
    }

    const proposal = await proposePolicy(services, admin, { policy: PROPOSED });
    // Pages of two screens, counted and replayed, each step's time up after its first page: the
    // count in two steps (the third page's count goes on to the replay), the replay in three.
    const steps: string[] = [];
    let delivered = 0;
    while (held.sent.length > delivered) {
      const job = held.sent[delivered++]!;
      await runSandboxStep(services, job, logger, { pageSize: 2, countPageSize: 2, stepMilliseconds: 0 });
      steps.push((await readProposal(local.store.table, admin, proposal.proposal_id)).status);
      // The same message again: nothing changes, and nothing more is queued than its next step.
      if (delivered === 1) {
        const before = await readProposal(local.store.table, admin, proposal.proposal_id);
        await runSandboxStep(services, job, logger, { pageSize: 2, countPageSize: 2, stepMilliseconds: 0 });
        expect(await readProposal(local.store.table, admin, proposal.proposal_id)).toEqual(before);
      }
    }
    const done = await readProposal(local.store.table, admin, proposal.proposal_id);
    const onePass = await runSandbox(history, async () => local.matcher, PROPOSED, 1);

    expect(steps).toEqual(['running', 'running', 'running', 'running', 'reported']);
    expect(done.progress).toEqual({ done: 5, total: 5 });
    expect(done.report).toEqual(onePass);
    expect(done.report?.confirmed_hits_no_longer_alerting.map((row) => row.name)).toEqual(['Olaf Scholz']);
  });
});
