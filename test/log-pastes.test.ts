/**
 * Controller logs as people paste them into Karpenter threads (fixtures/tickets/logs/README.md): Go panics and stack
 * traces, collectors' envelopes and exports, viewers' columns, and lines the copy damaged. Each file is scanned whole;
 * the table says which records a person reads in it (line, time, level, pod, message), how many trace lines went
 * into each record's stacktrace, what is skipped, and the exact findings.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

const dir = (name: string): string => join(FIXTURES, 'tickets', 'logs', name);
const CRI_FILE = 'var/log/containers/karpenter-6d5c4b3a2-p8q7r_kube-system_controller-3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a.log';

interface Case {
  file: string;
  /** `@line time LEVEL [ns/pod/container] message…` (message cut at 40; `?` after a time whose zone is unknown; `+N` trace lines). */
  logs: string[];
  skipped: string[];
  findings: string[];
}

const CASES: Case[] = [
  {
    file: 'panic-klog-recovered-v0.2.txt',
    logs: ['@7 - ERROR Observed a panic: "invalid memory addres +9', '@17 - PANIC panic: runtime error: invalid memory add +2'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'panic-after-console-v0.9.md',
    logs: [
      '@4 2022-06-02T19:40:11.930Z INFO Batched 2 pods in 1.000843s',
      '@5 2022-06-02T19:40:12.415Z ERROR unable to find node for bound pod, with ',
      '@6 - PANIC panic: runtime error: invalid memory add +8',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'panic-message-only-aggregator-v1.5.md',
    logs: ['@6 - PANIC panic: rpc error: code = Unavailable des +7'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'panic-startup-settings-v1.7.md',
    logs: ['@8 - PANIC panic: validating cli flags / env vars,  +9'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'console-stacktrace-limits-v0.30.md',
    logs: [
      '@5 2023-12-05T02:14:38.020Z ERROR Could not schedule pod, all available in +4',
      '@10 2023-12-05T02:14:48.061Z ERROR Could not schedule pod, all available in +2',
    ],
    skipped: ['4 1 line(s) of a Go stack trace whose record is not in the input (the first one here)', '1 prose (1 paragraph), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner reports (records)'],
  },
  {
    file: 'cut-year-spaced-console-v0.6.md',
    logs: ['@8 2022-02-21T15:27:09.344Z ERROR Could not launch node, launching instanc'],
    skipped: ['1 prose (4 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'fluentbit-envelope-v1.2.md',
    logs: [
      '@3 2025-04-02T11:08:51.551Z INFO [karpenter/karpenter-7b6c5d4e3-z9y8x/controller] launched nodeclaim',
      '@4 2025-04-02T11:10:02.118Z ERROR Reconciler error',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim infra-r4x9t (records)'],
  },
  {
    file: CRI_FILE,
    logs: [
      '@1 2025-05-14T22:31:07.204Z INFO [kube-system/karpenter-6d5c4b3a2-p8q7r/controller] found provisionable pod(s)',
      '@2 2025-05-14T22:31:07.388Z ERROR [kube-system/karpenter-6d5c4b3a2-p8q7r/controller] could not schedule pod',
      '@3 2025-05-14T22:31:09.017Z ERROR [kube-system/karpenter-6d5c4b3a2-p8q7r/controller] http: TLS handshake error from 10.2.9.18',
    ],
    skipped: [],
    findings: ['nodepool-limits-reached NodePool memory-heavy (records)'],
  },
  {
    file: 'lost-brace-unauthorized-v0.34.md',
    logs: [
      '@4 2024-05-21T07:44:12.870Z DEBUG discovered karpenter version',
      '@5 2024-05-21T07:44:12.981Z DEBUG discovered region',
      '@6 2024-05-21T07:44:16.305Z ERROR launching nodeclaim, creating instance, ',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['launch-refused-by-cloud-provider NodePool workers'],
  },
  {
    file: 'go-stdlog-startup-v0.29.txt',
    logs: [
      '@2 2023-10-03T08:30:11.402Z INFO [karpenter/karpenter-58c9d7b6f4-h6j5k/] Starting informers...',
      '@3 2023-10-03T08:30:11.000Z? - [karpenter/karpenter-58c9d7b6f4-h6j5k/] Registering 2 clients',
      '@4 2023-10-03T08:30:11.000Z? - [karpenter/karpenter-58c9d7b6f4-h6j5k/] Registering 2 informer factories',
      '@5 2023-10-03T08:30:11.000Z? - [karpenter/karpenter-58c9d7b6f4-h6j5k/] Registering 3 informers',
      '@6 2023-10-03T08:30:11.508Z INFO [karpenter/karpenter-58c9d7b6f4-h6j5k/] Starting server',
      '@7 - INFO [karpenter/karpenter-58c9d7b6f4-h6j5k/] attempting to acquire leader lease karpe',
      '@8 2023-10-03T08:31:40.772Z ERROR [karpenter/karpenter-58c9d7b6f4-h6j5k/] Could not schedule pod, incompatible wit',
    ],
    skipped: [],
    // The record states the cause: the pod does not tolerate the Provisioner's taint.
    findings: ['pending-pod-no-nodepool-fits Pod payments/ledger-0 (records)'],
  },
  {
    file: 'stern-console-newline-v0.31.md',
    logs: [
      '@4 2023-10-20T13:05:44.218Z INFO [/arpenter-7f8d9c6b5-t4n2w/controller] found provisionable pod(s)',
      '@5 2023-10-20T13:05:50.731Z ERROR [/karpenter-7f8d9c6b5-t4n2w/controller] http: TLS handshake error from 10.14.2.7',
      '@7 2023-10-20T13:05:54.402Z ERROR [/karpenter-7f8d9c6b5-t4n2w/controller] Could not schedule pod, all available in',
      '@8 2023-10-20T13:05:59.402Z INFO [/karpenter-7f8d9c6b5-m9c3x/webhook] set default labels on observability',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner observability (records)'],
  },
  {
    file: 'logs-insights-results.csv',
    logs: ['@2 2025-06-09T03:12:45.771Z ERROR Reconciler error', '@3 2025-06-09T03:11:58.306Z INFO created nodeclaim'],
    skipped: [],
    findings: ['unregistered-taint-problem NodeClaim edge-k2v5p (records)'],
  },
  {
    file: 'ellipsis-cut-records.txt',
    logs: [
      '@3 2024-09-03T16:42:05.118Z INFO disrupting nodeclaim(s) via delete, term',
      '@4 2024-09-03T16:42:05.640Z INFO tainted node',
      '@5 2024-09-03T16:44:31.902Z ERROR consistency error',
    ],
    skipped: ['- 3 log record(s) cut short in the paste (ending in …): read up to the cut, the rest is unknown', '1 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'kibana-discover-copy.txt',
    logs: [
      '@3 2024-09-03T16:44:31.902Z ERROR [/karpenter-84c6d5b7f-v6x3m/] Reconciler error',
      '@4 2024-09-03T16:42:05.118Z INFO [/karpenter-84c6d5b7f-v6x3m/] launched nodeclaim',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim apps-q3w8z (records)'],
  },
  {
    file: 'kubectl-logs-deploy-found-pods.txt',
    logs: [
      '@4 2025-02-17T05:40:11.204Z ERROR [/karpenter-79d8c6b5f4-hx2lq/controller] could not schedule pod',
      '@5 2025-02-17T05:40:21.305Z ERROR [/karpenter-79d8c6b5f4-hx2lq/controller] could not schedule pod',
    ],
    skipped: [],
    findings: ['nodepool-limits-reached NodePool gpu (records)'],
  },
  {
    file: 'logcli-query.txt',
    logs: [
      '@4 2025-02-17T06:58:02.771Z INFO [karpenter/karpenter-79d8c6b5f4-hx2lq/controller] launched nodeclaim',
      '@5 2025-02-17T06:59:30.118Z ERROR [karpenter/karpenter-79d8c6b5f4-hx2lq/controller] Reconciler error',
    ],
    // logcli is not a command the ticket reader knows; its line stays prose.
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim batch-m2k7d (records)'],
  },
  {
    file: 'pod-name-prefix-v1.3.md',
    logs: [
      '@7 2025-04-10T08:30:12.001Z INFO [/karpenter-5c9d8e7f6-k2l3m/] Starting Controller',
      '@8 2025-04-10T08:32:40.551Z ERROR [/karpenter-5c9d8e7f6-k2l3m/] Reconciler error',
      '@9 2025-04-10T08:30:12.441Z INFO [/karpenter-5c9d8e7f6-n4p5q/] attempting to acquire leader lease karpe',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim general-7hq2x (records)'],
  },
  {
    file: 'spaced-console-startup-v0.29.txt',
    logs: [
      '@3 2023-08-14T03:21:36.365Z DEBUG Successfully created the logger.',
      '@4 2023-08-14T03:21:36.365Z DEBUG Logging level set to: debug',
      '@5 2023-08-14T03:21:39.169Z DEBUG discovered region',
      '@6 2023-08-14T03:21:39.177Z INFO Starting server',
      '@7 2023-08-14T03:24:02.511Z ERROR Could not schedule pod, all available in',
    ],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner default (records)'],
  },
  {
    file: 'logs-insights-results.json',
    logs: ['@2 2025-06-09T03:12:45.771Z ERROR could not schedule pod', '@6 2025-06-09T03:11:58.306Z INFO found provisionable pod(s)'],
    skipped: [],
    findings: ['nodepool-limits-reached NodePool edge (records)'],
  },
  {
    file: 'aws-logs-tail.txt',
    logs: [
      '@2 2025-03-28T22:04:19.530Z ERROR [karpenter/karpenter-64f5b8d7c9-j6k8l/controller] Reconciler error',
      '@3 2025-03-28T22:03:02.118Z INFO [/karpenter-64f5b8d7c9-j6k8l/] created nodeclaim',
    ],
    // The ticket reader does not know `aws logs tail` as a command line.
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim checkout-5rq8n (records)'],
  },
  {
    file: 'logs-insights-table-copy.txt',
    logs: ['@4 2025-06-09T03:12:45.771Z ERROR Reconciler error', '@5 2025-06-09T03:11:58.306Z INFO created nodeclaim'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['unregistered-taint-problem NodeClaim edge-p9w3c (records)'],
  },
  {
    // A crashing controller in a `kubectl cluster-info dump` directory: the runtime's trace inside its log block.
    file: 'cluster-info-dump',
    logs: [
      '@2 2025-09-30T18:02:11.004Z DEBUG [karpenter/karpenter-5f6c7d8e9-a1b2c/controller] discovered karpenter version',
      '@3 2025-09-30T18:02:14.330Z ERROR [karpenter/karpenter-5f6c7d8e9-a1b2c/controller] Observed a panic +2',
      '@4 - PANIC [karpenter/karpenter-5f6c7d8e9-a1b2c/controller] panic: runtime error: invalid memory add +5',
    ],
    skipped: [],
    findings: [],
  },
  {
    file: 'terminal-wrapped-console-v0.31.md',
    logs: ['@4 2023-11-21T14:02:51.318Z INFO created machine', '@6 2023-11-21T14:03:01.907Z ERROR Could not schedule pod, all available in'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner observability (records)'],
  },
  {
    file: 'panic-aws-error-continuation-v0.6.md',
    logs: [
      '@8 2022-03-04T11:05:40.118Z INFO Successfully created the logger.',
      '@9 2022-03-04T11:05:40.118Z INFO Logging level set to: info',
      '@10 2022-03-04T11:05:40.223Z INFO Starting informers...',
      '@11 - PANIC panic: Unable to hydrate the AWS launch  +5',
    ],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    // The panic states the cause: the controller may not describe launch templates.
    findings: ['launch-refused-by-cloud-provider NodeClaim (name not shown)'],
  },
  {
    file: 'console-multiline-message-v0.8.md',
    logs: ['@6 2022-05-09T07:12:30.441Z ERROR Unable to delete launch template, Unauth'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['launch-refused-by-cloud-provider NodeClaim (name not shown)'],
  },
  {
    file: 'inline-error-chains.md',
    logs: [
      '@5 2023-03-14T09:41:07.512Z ERROR creating scheduler, getting instance typ',
      '@10 - ERROR creating instance, insufficient capacity',
      '@13 - ERROR failed calling webhook "validation.webho',
    ],
    skipped: ['1 prose (5 paragraphs), not objects or logs'],
    // The first record states no subnets matched (≤ v0.31 wording) without naming its Provisioner.
    findings: ['nodeclass-not-ready Provisioner (no name) (records)'],
  },
  {
    file: 'root-prompt-k-logs-v1.0.md',
    logs: [
      '@6 2024-11-02T16:20:01.101Z INFO [karpenter/karpenter-6c7d8e9f0-m3n4p/] attempting to acquire leader lease karpe',
      '@7 2024-11-02T16:20:12.480Z INFO [karpenter/karpenter-6c7d8e9f0-m3n4p/] successfully acquired lease karpenter/ka',
      '@10 2022-11-03T09:14:22.000Z? ERROR http: TLS handshake error from 10.40.1.9',
    ],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    // Time and level cut (a viewer shows them as columns of their own): the logger opens each line; the fields say it is a record.
    file: 'logger-first-console-limits-v0.28.md',
    logs: [
      '@4 - - Found 2 provisionable pod(s)',
      '@5 - - Could not schedule pod, all available in',
      '@6 - - Could not schedule pod, all available in',
      '@7 - - Found 2 provisionable pod(s)',
      '@8 - - Could not schedule pod, all available in',
      '@9 - - Could not schedule pod, all available in',
    ],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['nodepool-limits-reached Provisioner batch (records)'],
  },
  {
    // Stern's plain prefix before a console record without its time; a viewer's `41 | ` line numbers before JSON records without one.
    file: 'stern-undated-and-numbered-v0.30.md',
    logs: [
      '@5 - INFO [/karpenter-7c9d5b6f8-h2x4q/controller] found provisionable pod(s)',
      '@6 - ERROR [/karpenter-7c9d5b6f8-h2x4q/controller] Could not schedule pod, incompatible wit',
      '@12 - ERROR could not schedule pod',
      '@13 - ERROR could not schedule pod',
    ],
    skipped: ['4 shell commands, not read', '1 prose (2 paragraphs), not objects or logs'],
    findings: [
      'pending-pod-no-nodepool-fits Pod ingest/collector-5d8c7b6f9-p4m2z (records)',
      'pending-pod-no-nodepool-fits Pod ingest/collector-6b5c4d7e8-q9r3t (records)',
    ],
  },
  {
    // The AWS SDK's report of a failed call quoted alone, without Karpenter's chain or a record around it: an error of
    // unknown time, read because the catalog names its code; throttling seen once is stated, not a finding.
    file: 'sdk-error-alone-throttled-v1.md',
    logs: ['@6 - ERROR operation error EC2: CreateFleet, https '],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'sdk-error-alone-denied-v1.md',
    logs: ['@4 - ERROR operation error EC2: RunInstances, https'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['launch-refused-by-cloud-provider NodeClaim (name not shown)'],
  },
  {
    // Near miss: a Go network error, the SDK's wording around a code the catalog does not hold, a trace line: none read.
    file: 'sdk-shaped-go-errors-not-cloud.md',
    logs: [],
    skipped: [
      '4 text that is neither objects nor logs, not read',
      '8 text that is neither objects nor logs, not read',
      '12 1 log line(s) not recognised as Karpenter log records (the first one here)',
      '1 prose (1 paragraph), not objects or logs',
    ],
    findings: [],
  },
  {
    // Near miss: a numbered tab-separated table whose cells name controllers, and sentences that do: no record in it.
    file: 'tabbed-table-not-a-log.md',
    logs: [],
    skipped: ['6 text that is neither objects nor logs, not read', '1 prose (3 paragraphs), not objects or logs'],
    findings: [],
  },
];

describe('controller logs as pasted: every record read, traces kept with their record, the stated cause named', () => {
  it.each(CASES)('$file', async (c) => {
    const r = await scan([dir(c.file)], { now: '2026-01-01T00:00:00Z' });
    expect(r.load.objects.filter((o) => o.object.kind !== 'Pod')).toEqual([]);
    expect(
      r.load.logs.map((l) => {
        const trace = typeof l.fields.stacktrace === 'string' ? ` +${l.fields.stacktrace.split('\n').length}` : '';
        const pod = l.pod ? ` [${l.pod.namespace ?? ''}/${l.pod.name}/${l.pod.container ?? ''}]` : '';
        return `@${l.provenance.line} ${l.time ?? '-'}${l.timeZoneUnknown ? '?' : ''} ${l.level ?? '-'}${pod} ${l.message.slice(0, 40)}${trace}`;
      }),
    ).toEqual(c.logs);
    expect(r.load.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`)).toEqual(c.skipped);
    expect(r.findings.map(findingLabel)).toEqual(c.findings);
  });

  it('states a quoted SDK throttling error as seen once, and names the denied action of a quoted SDK refusal', async () => {
    const throttled = await scan([dir('sdk-error-alone-throttled-v1.md')], { now: '2026-01-01T00:00:00Z' });
    expect(throttled.run.notEvaluatedFor.filter((n) => n.stated).map((n) => n.ruleId)).toEqual(['launch-quota-or-throttling']);
    const denied = await scan([dir('sdk-error-alone-denied-v1.md')], { now: '2026-01-01T00:00:00Z' });
    expect(denied.findings[0]!.severity).toBe('warning');
    expect(denied.findings[0]!.message).toMatch(/not authorised to launch/);
  });

  it('keeps the trace text in order under its record, and the cut record only with its complete fields', async () => {
    const panic = await scan([dir('panic-message-only-aggregator-v1.5.md')]);
    // The aggregator's empty message before the trace is not part of it.
    expect(String(panic.load.logs[0]!.fields.stacktrace).split('\n')).toEqual([
      'goroutine 1 [running]:',
      'github.com/samber/lo.must({0x31e0ba0, 0x4000c93780}, {0x0, 0x0, 0x0})',
      '\tgithub.com/samber/lo@v1.50.0/errors.go:53 +0x1c8',
      'github.com/aws/karpenter-provider-aws/pkg/operator.NewOperator({0x3be2790, 0x40004b3bd0}, 0x400068ab40)',
      '\tgithub.com/aws/karpenter-provider-aws/pkg/operator/operator.go:108 +0x11c',
      'main.main()',
      '\tgithub.com/aws/karpenter-provider-aws/cmd/controller/main.go:31 +0x28',
    ]);
    const cut = await scan([dir('ellipsis-cut-records.txt')]);
    const last = cut.load.logs[2]!;
    expect(last.cut).toBe(true);
    // `NodeClaim` was cut inside its value: left out rather than guessed.
    expect(last.fields).toEqual({ logger: 'controller', commit: '62a726c', controller: 'nodeclaim.consistency' });
  });

  it('splits a console message from its fields where the copy left one space between them', async () => {
    const r = await scan([dir('spaced-console-startup-v0.29.txt')]);
    expect(r.load.logs[3]!.fields).toEqual({ logger: 'controller', commit: '5a2fe84', path: '/metrics', kind: 'metrics', addr: '[::]:8080' });
  });

  it('joins a console record the terminal wrapped, so its fields are read and its message is only the message', async () => {
    const r = await scan([dir('terminal-wrapped-console-v0.31.md')]);
    expect(r.load.logs.map((l) => [l.message.slice(0, 15), l.fields.pod ?? l.fields['instance-types']])).toEqual([
      ['created machine', 'm6a.2xlarge, m6i.2xlarge and 14 other(s)'],
      ['Could not sched', 'observability/tempo-ingester-2'],
    ]);
  });

  it('keeps a message written over several lines in one record: an AWS error under a panic, a console message up to its fields', async () => {
    const panic = await scan([dir('panic-aws-error-continuation-v0.6.md')]);
    expect(panic.load.logs[3]!.message).toBe(
      'panic: Unable to hydrate the AWS launch template cache, UnauthorizedOperation: You are not authorized to perform this operation.\n' +
        'status code: 403, request id: 7c1e4b2a-9d3f-4e8a-b5c6-0f1a2b3c4d5e',
    );
    const console = await scan([dir('console-multiline-message-v0.8.md')]);
    const r = console.load.logs[0]!;
    expect(r.message.split('\n')).toEqual([
      'Unable to delete launch template, UnauthorizedOperation: You are not authorized to perform this operation.',
      'Encoded authorization failure message: Qk1xR2Vk_c2FtcGxlLW5vdC1yZWFsLWVuY29kZWQtbWVzc2FnZQ',
      'status code: 403, request id: 2b9c6d1e-7f3a-4c5b-8d9e-1a2b3c4d5e6f',
    ]);
    expect(r.fields).toEqual({ logger: 'controller.aws.launchtemplate', commit: 'a4e8f12' });
  });

  it('invents no time for records pasted without one: counted, never placed between times', async () => {
    const r = await scan([dir('logger-first-console-limits-v0.28.md')], { now: '2026-01-01T00:00:00Z' });
    expect(r.load.logs.every((l) => l.time === undefined && l.level === undefined)).toBe(true);
    expect(r.load.logs[1]!.fields).toEqual({ logger: 'controller.provisioner', commit: '8f5d1a7', pod: 'analytics/nightly-rollup-28391040-7tq5p' });
    expect(r.findings[0]!.message).toMatch(/for pending pods 4 times because/);
    expect(r.findings[0]!.message).not.toMatch(/ between | until | at \d/);
  });

  it('takes the reference time from the records, and none from a panic without a time', async () => {
    const stdlog = await scan([dir('go-stdlog-startup-v0.29.txt')]);
    expect(stdlog.snapshot.referenceTime.iso).toBe('2023-10-03T08:31:40.772Z');
    const panic = await scan([dir('panic-startup-settings-v1.7.md')]);
    expect(panic.load.logs[0]!.time).toBeUndefined();
  });
});
