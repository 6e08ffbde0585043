/**
 * Cloud codes of the newer generations, wherever a ticket quotes them (fixtures/tickets/causes/, our own values in the
 * shapes of public issue threads): the v2 AWS SDK's client-side retry quota, EC2 refusing the request itself, and
 * Azure Resource Manager's answers — counted once per response, confirmed with Azure's tools, and never taken for an
 * EC2 failure or an AWS release number.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';
import { classifyCloudError } from '../src/snapshot/messages/cloud-errors.js';
import { controllerErrorsIn } from '../src/snapshot/messages/controller-errors.js';
import { apiMismatch } from '../src/snapshot/messages/api-errors.js';
import { parseLogLine } from '../src/loaders/logs.js';

const ticket = (name: string) => join(FIXTURES, 'tickets', 'causes', name);
const stated = (r: Awaited<ReturnType<typeof scan>>, ruleId: string) =>
  r.run.notEvaluatedFor.filter((n) => n.stated && n.ruleId === ruleId).map((n) => n.reason);
const codes = (text: string) => classifyCloudError(text).map((c) => `${c.family}:${c.code}`);

describe('the codes, in wrappings the tuning tickets did not show', () => {
  it("the SDK's retry quota on another operation, inside a v1 Launched condition", () => {
    expect(
      codes(
        'creating instance, creating fleet, operation error EC2: CreateFleet, failed to get rate limit token, retry quota exceeded, 0 available, 5 requested',
      ),
    ).toEqual(['throttling:RetryQuotaExceeded']);
  });

  it("EC2's InvalidInput as the v2 SDK spells it, and its text without the code", () => {
    expect(codes('operation error EC2: CreateFleet, https response error StatusCode: 400, api error InvalidInput: too large')).toEqual([
      'refused:InvalidInput',
    ]);
    expect(codes('The request failed because the payload for the body of the request is too large.')).toEqual(['refused:InvalidInput']);
  });
});

describe('tickets', () => {
  it('v1.x controller-runtime record: the retry quota is named as throttling, below its threshold', async () => {
    const r = await scan([ticket('retry-quota-v1.4.log')]);
    expect(r.findings).toEqual([]);
    const [line] = stated(r, 'launch-quota-or-throttling');
    expect(line).toMatch(/^EC2 API throttled for NodePool spot-wide once at 2025-06-02T03:11:21.455Z: the AWS SDK's client-side retry quota is used up/);
  });

  it('a Launched condition printed with jsonpath: InvalidInput is a refused launch', async () => {
    const r = await scan([ticket('fleet-invalid-input-v1.1.md')]);
    expect(r.findings.map((f) => f.ruleId)).toEqual(['launch-refused-by-cloud-provider']);
    expect(r.findings[0]!.message).toContain('EC2 rejects the launch request itself (InvalidInput)');
  });

  it("Azure's SubnetIsFull response in a fence: one failure, Azure's command, and v1.4.0 is weighed as an Azure release", async () => {
    const r = await scan([ticket('azure-subnet-full-fenced.md')]);
    expect(r.findings).toEqual([]);
    const lines = stated(r, 'subnet-addresses-exhausted');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('once: the subnet has no free IP addresses (SubnetIsFull)');
    expect(lines[0]).toContain('az network vnet subnet list-available-ips');
    expect(lines[0]).not.toContain('aws ec2');
    expect(r.snapshot.controller).toMatchObject({ version: [1, 4, 0], versionIsCore: true });
    expect(r.snapshot.controller.versionEvidence).toMatch(/^Azure provider v1\.4\.0, stated in the ticket: .*, which vendors core v1\.4\.0$/);
  });

  it("the same SubnetIsFull judged (failures=1): the finding names Azure's code, node class and commands", async () => {
    const r = await scan([ticket('azure-subnet-full-fenced.md')], { options: { 'subnet-addresses-exhausted': { failures: 1 } } });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['subnet-addresses-exhausted']);
    const [f] = r.findings;
    expect(f!.message).toContain('launches failed once with SubnetIsFull');
    expect(f!.message).toContain('kubectl get nodepools,nodeclaims,aksnodeclasses -o yaml');
    expect(String(f!.fix)).toContain('az network vnet subnet list-available-ips');
    expect(`${f!.message}${String(f!.fix)}`).not.toMatch(/InsufficientFreeAddressesInSubnet|ec2nodeclasses|aws ec2/);
  });

  it("Azure's cores quota inside a v1 record's error field: named, with Azure's usage command", async () => {
    const r = await scan([ticket('azure-quota-once.md')]);
    expect(r.findings).toEqual([]);
    const [line] = stated(r, 'launch-quota-or-throttling');
    expect(line).toContain("the subscription's cores quota is used up");
    expect(line).toContain('az vm list-usage --location <region>');
    expect(line).not.toContain('aws service-quotas');
  });
});

describe("Azure's response error pasted as it prints, over many lines", () => {
  it('status, code, rules of dashes and an indented JSON body are one failure, read for the quota it names', async () => {
    const r = await scan([ticket('azure-quota-response-body.md')]);
    expect(r.load.logs).toHaveLength(1);
    expect(r.findings).toEqual([]);
    const [line] = stated(r, 'launch-quota-or-throttling');
    expect(line).toContain("once: the subscription's cores quota is used up");
    expect(line).toContain('az vm list-usage');
    expect(r.snapshot.skipped.map((s) => s.reason)).toEqual(['prose (2 paragraphs), not objects or logs']);
  });
});

describe("the API server's webhook answers after an upgrade", () => {
  it('a webhook configuration left by an older chart: the resolver finds no port, named as the admission webhook failing', async () => {
    expect(
      controllerErrorsIn(
        'Internal error occurred: failed calling webhook "validation.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.kube-system.svc:8443/validate?timeout=10s": service "karpenter" not found',
      ),
    ).toEqual(['webhook-unreachable']);
    const r = await scan([ticket('stale-webhook-v1.0.md')]);
    expect(r.findings).toEqual([]);
    const [line] = stated(r, 'karpenter-api-version-mismatch');
    expect(line).toMatch(/^kubectl states Karpenter's admission webhook fails .*a webhook configuration left by an older chart/);
    expect(line).toContain('kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations | grep karpenter');
  });

  it('an apply whose conversion answer is malformed is the conversion webhook failing, for the kind it names', () => {
    const text =
      'Error from server: failed to prune fields: failed add back owned items: failed to convert pruned object at version karpenter.k8s.aws/v1: conversion webhook for karpenter.k8s.aws/v1beta1, Kind=EC2NodeClass returned invalid metadata: invalid metadata of type <nil> in input object';
    expect(parseLogLine(text, 1, { source: 'ticket.md' })?.level).toBe('ERROR');
    expect(apiMismatch(text)).toEqual({ signal: 'conversion-webhook-fails', kind: 'EC2NodeClass' });
  });
});
