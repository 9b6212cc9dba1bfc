import type { Logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import type { Matcher } from '../matcher/screen.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import { findProposal, type Proposal, proposalWrites } from '../policy/proposal-table.ts';
import { type PolicySandboxJob, sandboxJobBody } from '../policy/sandbox-job.ts';
import { orderedReport } from '../policy/sandbox-report.ts';
import type { Services } from '../ports.ts';
import { DONE, type JobHandler, type JobOutcome } from '../queue/partial-batch.ts';
import { trySendWrite } from '../store/write.ts';
import { matcherForSnapshotVersion } from '../sync/snapshot-matchers.ts';
import { snapshotStoreOf } from '../sync/snapshot-store.ts';
import { runSandbox, sha256Of } from './policy-sandbox.ts';
import {
  countScreensScreenedBetween,
  type ScreenItem,
  type ScreenPagePosition,
  screensScreenedBetween,
} from './screen-table.ts';

/**
 * The sandbox of a policy proposal as a job on the work queue (kind `policy-sandbox`;
 * docs/policies.md): the tenant's screens of the proposal's period are replayed, each on the
 * snapshot its receipt names (lib/sync/snapshot-matchers.ts, as replay does), under the proposed
 * policy, in steps of at most STEP_MILLISECONDS each, so a long history never outlives the worker's
 * timeout. Each step reads on from where the previous one left off, records the progress and the
 * report so far on the proposal (conditional on its step number: a redelivered step writes
 * nothing), and queues the next; the last one keeps the report and its SHA-256 with the proposal.
 */

/** Wall time one step replays for before it hands on (the worker's timeout is 60 s). */
export const STEP_MILLISECONDS = 15_000;
/** Screens read per page of the period. */
const PAGE_SIZE = 100;

type SandboxServices = Pick<Services, 'table' | 'config' | 'matcher' | 'batchQueue'>;

/** The matcher of each snapshot version a step meets, built (or found gone) once per step. */
function matchersOf(services: SandboxServices): (version: string) => Promise<Matcher | undefined> {
  const found = new Map<string, Promise<Matcher | undefined>>();
  return (version) => {
    let matcher = found.get(version);
    if (!matcher) {
      matcher = (async () => {
        const live = await services.matcher();
        if (live.snapshot.version === version) return live;
        const built = await matcherForSnapshotVersion(
          {
            store: snapshotStoreOf(services.config),
            loadBundled: () => loadSnapshot(services.config.WATCHLIST_SNAPSHOT || undefined),
          },
          version,
        );
        return 'matcher' in built ? built.matcher : undefined;
      })();
      found.set(version, matcher);
    }
    return matcher;
  };
}

/** The screens of the period from `position` on, a page at a time, until the step's time is up. */
async function* screensOfStep(
  services: SandboxServices,
  proposal: Proposal,
  step: { deadline: number; pageSize: number },
  at: { position: ScreenPagePosition | undefined; finished: boolean },
): AsyncGenerator<ScreenItem> {
  do {
    const { screens, next } = await screensScreenedBetween(
      services.table,
      proposal.tenant_id,
      proposal.period,
      step.pageSize,
      at.position,
    );
    yield* screens;
    at.position = next;
    at.finished = next === undefined;
  } while (!at.finished && Date.now() < step.deadline);
}

/** One step of a proposal's sandbox; what the queue should do with its message. */
export async function runSandboxStep(
  services: SandboxServices,
  job: PolicySandboxJob,
  log: Logger,
  options: { now?: () => Date; pageSize?: number; countPageSize?: number; stepMilliseconds?: number } = {},
): Promise<JobOutcome> {
  const now = options.now ?? (() => new Date());
  const { table } = services;
  const proposal = await findProposal(table, job.tenant_id, job.proposal_id);
  if (proposal?.status !== 'running') return DONE;
  if (proposal.step !== job.step) {
    // This step landed and its message came again (a step never counts twice). When the next
    // step's message was never queued (the step's write landed, its send failed), it is now.
    if (proposal.step === job.step + 1 && proposal.queued_step < proposal.step)
      await queueStep(services, proposal, proposal.step);
    return DONE;
  }
  const deadline = Date.now() + (options.stepMilliseconds ?? STEP_MILLISECONDS);
  let total = proposal.progress.total;
  if (total === null) {
    // First the period's screens are counted (the progress's total), in steps of their own.
    const counted = await countScreensScreenedBetween(table, job.tenant_id, proposal.period, {
      size: options.countPageSize ?? PAGE_SIZE * 10,
      from: (proposal.counting?.position ?? undefined) as ScreenPagePosition | undefined,
      goOn: () => Date.now() < deadline,
    });
    const sum = (proposal.counting?.counted ?? 0) + counted.count;
    if (counted.next) {
      const outcome = await trySendWrite(
        table,
        proposalWrites.counted(job.tenant_id, job.proposal_id, job.step, {
          counted: sum,
          position: counted.next as Record<string, unknown>,
        }),
      );
      if (outcome.written) await queueStep(services, proposal, job.step + 1);
      return DONE;
    }
    total = sum;
  }
  const at = {
    position: (proposal.position ?? undefined) as ScreenPagePosition | undefined,
    finished: false,
  };
  const report = await runSandbox(
    screensOfStep(services, proposal, { deadline, pageSize: options.pageSize ?? PAGE_SIZE }, at),
    matchersOf(services),
    proposal.policy,
    proposal.based_on_version + 1,
    undefined,
    proposal.partial ? { report: proposal.partial, done: proposal.progress.done } : undefined,
  );
  // The report is of every screen so far: those replayed and those skipped.
  const done = report.screens_replayed + report.screens_skipped.length;
  if (at.finished) {
    const ordered = orderedReport(report);
    const outcome = await trySendWrite(
      table,
      proposalWrites.reported(job.tenant_id, job.proposal_id, job.step, {
        done,
        // Screens made in the period after the count was taken are replayed too.
        total: Math.max(total, done),
        report: ordered,
        digest: sha256Of(ordered),
        at: isoSeconds(now()),
      }),
    );
    if (outcome.written)
      log.info({ tenantId: job.tenant_id, proposalId: job.proposal_id, screens: done }, 'sandbox reported');
    return DONE;
  }
  const outcome = await trySendWrite(
    table,
    proposalWrites.stepDone(job.tenant_id, job.proposal_id, job.step, {
      done,
      total,
      position: at.position as Record<string, unknown>,
      partial: report,
    }),
  );
  if (outcome.written) await queueStep(services, proposal, job.step + 1);
  return DONE;
}

async function queueStep(services: SandboxServices, proposal: Proposal, step: number): Promise<void> {
  const { failed } = await services
    .batchQueue()
    .sendAll([sandboxJobBody(proposal.tenant_id, proposal.proposal_id, step)]);
  // Thrown: the message of the step that just landed comes again, and sends this one again.
  if (failed.length > 0) throw new Error(`sandbox step ${step} could not be queued`);
  await trySendWrite(services.table, proposalWrites.queued(proposal.tenant_id, proposal.proposal_id, step));
}

/**
 * The job kind's handler (lib/jobs/queue-worker.ts): a step that throws is retried by the queue;
 * on its last delivery the proposal is marked failed, so it never stays running for ever.
 */
export function policySandboxHandler(deps: {
  services: () => SandboxServices;
  log: Logger;
}): JobHandler<PolicySandboxJob> {
  return {
    async run(job, delivery) {
      try {
        return await runSandboxStep(deps.services(), job, deps.log);
      } catch (error) {
        if (delivery.receiveCount < delivery.maxReceiveCount) throw error;
        deps.log.error(
          { err: error, tenantId: job.tenant_id, proposalId: job.proposal_id, step: job.step },
          'sandbox failed for good',
        );
        await trySendWrite(
          deps.services().table,
          proposalWrites.failed(
            job.tenant_id,
            job.proposal_id,
            'The sandbox job failed after every retry; propose the policy again',
          ),
        );
        return DONE;
      }
    },
  };
}
