import { rmSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../lib/contract/routes.ts';

import {
  actionsOf,
  deployedRoutes,
  functionFor,
  resourcesOf,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack: the batch queue and its worker, the scheduled jobs, and the retention purge. */

let template: Template;
let fixture: string;
beforeAll(() => {
  const synthesised = synthDeployedStack();
  fixture = synthesised.root;
  template = synthesised.template;
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

describe('batch pipeline', () => {
  const streamRoutes = deployedRoutes.filter((r) => r.kind === 'stream');

  it('serves each stream route from an IAM-authenticated response-streaming Function URL', () => {
    const urls = resourcesOf('AWS::Lambda::Url');
    expect(urls).toHaveLength(streamRoutes.length);
    for (const route of streamRoutes) {
      const [functionId, fn] = functionFor(route);
      const url = urls.find(([, u]) => JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId));
      expect(url?.[1].Properties).toMatchObject({ AuthType: 'AWS_IAM', InvokeMode: 'RESPONSE_STREAM' });
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (route.sendsToQueue) expect(variables, route.id).toHaveProperty('BATCH_QUEUE_URL');
      else expect(variables, route.id).not.toHaveProperty('BATCH_QUEUE_URL');
    }
  });

  it('has a queue whose visibility covers six worker timeouts and a DLQ after three receives', () => {
    const [, worker] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Screens one batch subject'),
    )!;
    const queues = resourcesOf('AWS::SQS::Queue').filter(([id]) => id.startsWith('Batch'));
    expect(queues).toHaveLength(2);
    const main = queues.find(([, q]) => q.Properties.RedrivePolicy)!;
    const [dlqId] = queues.find(([, q]) => !q.Properties.RedrivePolicy)!;
    expect(main[1].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 3,
    });
    expect(main[1].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * (worker.Properties.Timeout as number),
    );
  });

  it('feeds the worker 10 messages at a time and retries only the failed ones', () => {
    const [workerId] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Screens one batch subject'),
    )!;
    const [queueId] = resourcesOf('AWS::SQS::Queue').find(([, q]) => q.Properties.RedrivePolicy)!;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('alarms as soon as a message reaches the dead-letter queue', () => {
    const [dlqId] = resourcesOf('AWS::SQS::Queue').find(([, q]) => !q.Properties.RedrivePolicy)!;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });
});

describe('scheduled jobs', () => {
  it('each manifest job has its function, an EventBridge rule at its rate targeting it, and its grants', () => {
    expect(scheduledJobs.map((job) => job.id)).toContain('auto-rescreen');
    for (const job of scheduledJobs) {
      const [functionId, fn] = resourcesOf('AWS::Lambda::Function').find(
        ([, r]) => r.Properties.Description === job.summary,
      )!;
      const rules = resourcesOf('AWS::Events::Rule').filter(([, r]) =>
        (r.Properties.Targets as { Arn: unknown }[]).some(
          (target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        ),
      );
      expect(rules, job.id).toHaveLength(1);
      expect(rules[0][1].Properties.ScheduleExpression).toBe(
        job.everyMinutes === 1
          ? 'rate(1 minute)'
          : job.everyMinutes === 60
            ? 'rate(1 hour)'
            : job.everyMinutes === 24 * 60
              ? 'rate(1 day)'
              : `rate(${job.everyMinutes} minutes)`,
      );
      const actions = actionsOf(fn);
      expect(actions).toContain('dynamodb:UpdateItem');
      if (job.sendsToQueue || job.sendsWebhooks) expect(actions).toContain('sqs:SendMessage');
      else expect(actions.filter((a) => a.startsWith('sqs:'))).toEqual([]);
      const permissions = resourcesOf('AWS::Lambda::Permission').filter(
        ([, r]) =>
          r.Properties.Principal === 'events.amazonaws.com' &&
          JSON.stringify(r.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
      );
      expect(permissions, job.id).toHaveLength(1);
    }
  });
});

describe('the retention purge', () => {
  it('runs daily from its own rule, may read and delete screens and write its audit entry, and sends nothing to the queue', () => {
    const purge = scheduledJobs.find((job) => job.id === 'retention-purge')!;
    const [functionId, fn] = resourcesOf('AWS::Lambda::Function').find(
      ([, r]) => r.Properties.Description === purge.summary,
    )!;
    const [rule] = resourcesOf('AWS::Events::Rule').filter(([, r]) =>
      (r.Properties.Targets as { Arn: unknown }[]).some(
        (target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
      ),
    );
    expect(rule[1].Properties.ScheduleExpression).toBe('rate(1 day)');
    const actions = actionsOf(fn);
    for (const needed of [
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ])
      expect(actions).toContain(needed);
    expect(actions.filter((a) => a.startsWith('sqs:') || a.startsWith('s3:'))).toEqual([]);
  });
});
