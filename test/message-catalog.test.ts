/**
 * The message catalog (src/snapshot/messages/, src/kube/messages/): every row listed in docs/karpenter-behaviour.md
 * §8.6, and each mechanism recognised in members of several generations and wrappings — not only the wording where
 * it was first met (a v0.10 console line carrying InsufficientFreeAddressesInSubnet, a startup panic naming the
 * resource the API server does not serve, an Azure code in a condition, an event or a quoted line).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLogLine } from '../src/loaders/logs.js';
import { apiMismatch } from '../src/snapshot/messages/api-errors.js';
import { catalogRows } from '../src/snapshot/messages/catalog.js';
import { classifyCloudError } from '../src/snapshot/messages/cloud-errors.js';
import { nodeClassPanicFrame, unreachableEndpoint } from '../src/snapshot/messages/controller-errors.js';
import { FIXTURES, findingLabel, scan } from './support/scan.js';

describe('docs/karpenter-behaviour.md §8.6 lists every catalog row', () => {
  const doc = readFileSync(new URL('../docs/karpenter-behaviour.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### 8.6 '), doc.indexOf('## 9. '));
  const listed = [...section.matchAll(/^\| `([a-z-]+\/[\w.:-]+)` \|/gm)].map((m) => m[1]);
  const rows = catalogRows();

  it('the same rows, no more, no fewer (regenerate with node scripts/message-catalog.mjs)', () => {
    expect(listed.sort()).toEqual(rows.map((r) => r.id).sort());
  });
  it('each row says who prints it; each cloud row says what it names', () => {
    for (const r of rows) expect(r.printed.length, r.id).toBeGreaterThan(0);
    for (const r of rows.filter((x) => x.id.startsWith('cloud/') && x.id !== 'cloud/InsufficientCapacity')) expect(r.carries.length, r.id).toBeGreaterThan(0);
  });
});

const codes = (text: string) => classifyCloudError(text).map((c) => `${c.family}:${c.code}`);

describe('a cloud error code is the same cause in every wrapping', () => {
  it.each([
    // ≤ v0.31 zap console message, the chain is the message.
    ['Could not launch node, launching instances, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses'],
    // v0.32–v0.36 JSON: the chain as the message.
    ['creating instance, insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet'],
    // v1.x Launched condition reason (mixed fleet errors) and its message.
    ['InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet subnet-0a1b2c3d to satisfy the requested number of instances'],
    // EC2's text quoted without the code.
    ["There are not enough free addresses in subnet 'subnet-0a1b2c3d' to satisfy the requested number of instances."],
  ])('%s', (text) => {
    expect(codes(text)).toEqual(['subnet:InsufficientFreeAddressesInSubnet']);
  });

  it('Azure codes: subnet, quota, capacity, whatever wraps them', () => {
    expect(
      codes('RESPONSE 400: 400 Bad Request\nERROR CODE: SubnetIsFull\nSubnetIsFull: Subnet /subscriptions/x/…/subnets/aks does not have enough capacity'),
    ).toEqual(['subnet:SubnetIsFull']);
    expect(
      codes(
        'ERROR CODE: OperationNotAllowed {"error":{"code":"OperationNotAllowed","message":"Operation could not be completed as it results in exceeding approved standardEDSv5Family Cores quota."}}',
      ),
    ).toEqual(['quota:QuotaExceeded']);
    expect(codes('The regional capacity limit for your subscription has been reached. To scale beyond this limit, …')).toEqual(['quota:QuotaExceeded']);
    expect(codes('creating instance, insufficient capacity, SkuNotAvailable: The requested VM size … is currently not available in location')).toEqual([
      'capacity:SkuNotAvailable',
    ]);
    expect(codes('unable to allocate resources in the selected zone (westeurope-3). (will try a different zone to fulfill your request)')).toEqual([
      'capacity:ZonalAllocationFailed',
    ]);
    expect(
      codes('{"code":"OverconstrainedAllocationRequest","message":"Allocation failed. VM(s) with the following constraints cannot be allocated"}'),
    ).toEqual(['capacity:OverconstrainedAllocationRequest']);
    expect(codes('AllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size in this region.')).toEqual([
      'capacity:AllocationFailed',
    ]);
  });

  it("the Azure provider's own words for ARM's answers (no code in them), v0.2 and v1.4 on", () => {
    // Karpenter's create errors, as a NodeClaim's Launched message or a record's error carries them.
    expect(
      codes('regional spot vCPU quota limit for subscription has been reached. To scale beyond this limit, please review the quota increase process'),
    ).toEqual(['quota:QuotaExceeded']);
    expect(codes('subscription level on-demand vCPU quota for Standard_E8ds_v5 has been reached (may try provision an alternative instance type)')).toEqual([
      'quota:QuotaExceeded',
    ]);
    expect(
      codes('creating instance, this subscription has reached the regional vCPU quota for spot (LowPriorityQuota). To scale beyond this limit, …'),
    ).toEqual(['quota:LowPriorityQuota']);
    expect(codes('the requested SKU is unavailable for instance type Standard_NC6s_v3 in zone eastus2-2 with capacity type spot, for more details …')).toEqual([
      'capacity:SkuNotAvailable',
    ]);
    expect(
      codes('unable to allocate resources in the selected zone (swedencentral-1) with spot capacity type and Standard_F16s_v2 VM size. (will try …)'),
    ).toEqual(['capacity:OverconstrainedAllocationRequest']);
    expect(codes('unable to allocate resources in all zones with on-demand capacity type and Standard_L8s_v3 VM size. (will try a different …)')).toEqual([
      'capacity:OverconstrainedAllocationRequest',
    ]);
    expect(codes('unable to allocate resources with selected VM size (Standard_HB120rs_v3). (will try a different VM size to fulfill your request)')).toEqual([
      'capacity:AllocationFailed',
    ]);
    // ARM's own text for the Spot quota: one cause, the Spot quota, not also the family cores quota.
    expect(
      codes(
        '{"code":"OperationNotAllowed","message":"Operation could not be completed as it results in exceeding approved LowPriorityCores quota. Current Limit: 10"}',
      ),
    ).toEqual(['quota:LowPriorityQuota']);
  });

  it("Azure RBAC refusals, the VM's own and a linked resource's", () => {
    expect(
      codes(
        'RESPONSE 403: 403 Forbidden\nERROR CODE: LinkedAuthorizationFailed\n{"error":{"code":"LinkedAuthorizationFailed","message":"The client \'f1e2\' with object id \'f1e2\' has permission to perform action \'Microsoft.Network/networkInterfaces/write\' on scope \'/subscriptions/x/resourceGroups/MC_rg/providers/Microsoft.Network/networkInterfaces/aks-pool-x1\'; however, it does not have permission to perform action(s) \'Microsoft.Network/virtualNetworks/subnets/join/action\' on the linked scope(s)"}}',
      ),
    ).toEqual(['refused:AuthorizationFailed']);
    expect(
      codes("The client 'ab12' with object id 'ab12' does not have authorization to perform action 'Microsoft.Compute/virtualMachines/write' over scope"),
    ).toEqual(['refused:AuthorizationFailed']);
  });

  it('EC2 quota and price codes, also when only the text is quoted', () => {
    expect(codes('Instance launch failed. You have requested more vCPU capacity than your current vCPU limit of 512 allows for the instance bucket')).toEqual([
      'quota:VcpuLimitExceeded',
    ]);
    expect(codes('creating instance, with fleet error(s), SpotMaxPriceTooLow: Your Spot request price of 0.4 is lower than the minimum required')).toEqual([
      'capacity:SpotMaxPriceTooLow',
    ]);
  });

  it('a line quoting the cloud as it prints it is an error record; other `Word: text` lines are not', () => {
    const read = (t: string) => parseLogLine(t, 1, { source: 'ticket.md' });
    expect(read('MaxSpotInstanceCountExceeded: Max spot instance count exceeded')?.level).toBe('ERROR');
    expect(read('api error RequestLimitExceeded: Request limit exceeded.')?.level).toBe('ERROR');
    expect(read('ERROR CODE: SubnetIsFull')?.level).toBe('ERROR');
    expect(read('Note: we upgraded the chart last week and nothing else changed')).toBeNull();
    expect(read('ERROR CODE: ResourceGroupNotFound')).toBeNull();
  });

  it("kubectl's and Helm's refusals of a Karpenter resource, and older console chains, are error records", () => {
    const read = (t: string) => parseLogLine(t, 1, { source: 'ticket.md' });
    expect(
      read(
        'error: resource mapping not found for name: "spot" namespace: "" from "pools.yaml": no matches for kind "Provisioner" in version "karpenter.sh/v1alpha5"',
      )?.level,
    ).toBe('ERROR');
    expect(
      read('error: unable to retrieve the complete list of server APIs: karpenter.sh/v1beta1: the server could not find the requested resource')?.level,
    ).toBe('ERROR');
    expect(read('Error from server (Forbidden): pods is forbidden: User "dev" cannot list resource "pods" in API group ""')).toBeNull();
    expect(
      read(
        'Provisioning failed, launching node, creating cloud provider machine, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient m5.4xlarge capacity',
      )?.level,
    ).toBe('ERROR');
  });
});

describe('an AWS endpoint out of network reach, every SDK wording', () => {
  it('names the host, the service, the region and how the network failed', () => {
    // aws-sdk-go v1 through an escaped JSON string, the global IAM endpoint.
    expect(
      unreachableEndpoint(
        'creating instance profile, RequestError: send request failed\\ncaused by: Post \\"https://iam.amazonaws.com/\\": dial tcp 52.94.225.3:443: connect: connection refused',
      ),
    ).toEqual({ host: 'iam.amazonaws.com', service: 'iam', failure: 'connection refused' });
    // aws-sdk-go-v2 with a TLS handshake that never completes (a proxy or firewall in the way).
    expect(
      unreachableEndpoint(
        'operation error EKS: DescribeCluster, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post "https://eks.ca-central-1.amazonaws.com/clusters/prod": net/http: TLS handshake timeout',
      ),
    ).toEqual({ host: 'eks.ca-central-1.amazonaws.com', service: 'eks', region: 'ca-central-1', failure: 'TLS handshake timeout' });
  });
  it('is not a refusal by the service, nor a timeout to another host', () => {
    expect(unreachableEndpoint('operation error EC2: RunInstances, https response error StatusCode: 403, api error UnauthorizedOperation')).toBeUndefined();
    expect(unreachableEndpoint('Get "https://10.100.0.1:443/api/v1/nodes": dial tcp 10.100.0.1:443: i/o timeout')).toBeUndefined();
    // ec2messages / ssmmessages are the SSM agent's endpoints on a node, not the controller's.
    expect(unreachableEndpoint('Post "https://ec2messages.us-east-1.amazonaws.com/": dial tcp 10.0.4.4:443: i/o timeout')).toBeUndefined();
  });
});

describe("a panic's trace: the Karpenter frame that resolves a pool's node class", () => {
  it('names the first Karpenter frame when it resolves the reference, in either repository layout', () => {
    const v1beta1 = [
      'goroutine 88 [running]:',
      'sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Reconcile.func1()',
      '\tsigs.k8s.io/controller-runtime@v0.17.2/pkg/internal/controller/controller.go:116 +0x1e5',
      'github.com/aws/karpenter-provider-aws/pkg/cloudprovider.(*CloudProvider).resolveNodeClassFromNodePool(0xc000a1e2d0, {0x33c1f08, 0xc002b4e9f0}, 0xc001f6a000)',
      '\tgithub.com/aws/karpenter-provider-aws/pkg/cloudprovider/cloudprovider.go:221 +0x54',
    ].join('\n');
    expect(nodeClassPanicFrame(v1beta1)).toBe('cloudprovider.(*CloudProvider).resolveNodeClassFromNodePool');
  });
  it('says nothing of a panic elsewhere in Karpenter (an interruption message, a scheduling simulation)', () => {
    const other = [
      'goroutine 301 [running]:',
      'github.com/aws/karpenter-provider-aws/pkg/controllers/interruption.(*Controller).handleMessage(0xc0009b2000, {0x3a1c7e8, 0xc00238e2a0}, {0x0, 0x0})',
      '\tgithub.com/aws/karpenter-provider-aws/pkg/controllers/interruption/controller.go:160 +0x3b',
    ].join('\n');
    expect(nodeClassPanicFrame(other)).toBeUndefined();
  });
});

describe('API server and controller disagreeing, every generation', () => {
  it.each([
    ['panic: failed to setup nodeclaim provider id indexer: no matches for kind "NodeClaim" in version "karpenter.sh/v1"', 'kind-not-served', 'NodeClaim'],
    [
      'failed to setup machine provider id indexer: failed to get API group resources: unable to retrieve the complete list of server APIs: karpenter.sh/v1alpha5: the server could not find the requested resource',
      'resource-not-served',
      'Machine',
    ],
    [
      'unable to retrieve the complete list of server APIs: karpenter.sh/v1beta1: the server could not find the requested resource',
      'resource-not-served',
      undefined,
    ],
    ['panic: listing nodepools.karpenter.sh for the indexer: the server could not find the requested resource', 'resource-not-served', 'NodePool'],
    ['failed to list *v1.NodeClaim: the server could not find the requested resource', 'resource-not-served', 'NodeClaim'],
    ['the server could not find the requested resource (get ec2nodeclasses.karpenter.k8s.aws)', 'resource-not-served', 'EC2NodeClass'],
    ['Timeout: failed waiting for *v1.NodePool Informer to sync', undefined, undefined],
    // Objects stored in a version the CRD no longer lists, as an informer and as kubectl meet them.
    [
      'failed to list *v1beta1.EC2NodeClass: request to convert CR from an invalid group/version: karpenter.k8s.aws/v1',
      'stored-version-dropped',
      'EC2NodeClass',
    ],
    ['Error from server: request to convert CR from an invalid group/version: karpenter.sh/v1', 'stored-version-dropped', undefined],
    ['request to convert CR from an invalid group/version: postgres.example.io/v2', undefined, undefined],
  ])('%s', (text, signal, kind) => {
    const said = apiMismatch(text);
    expect(said?.signal).toBe(signal);
    expect(said?.kind).toBe(kind);
  });
});

describe('members of each family, scanned (fixtures/tickets/families/)', () => {
  const file = (name: string) => join(FIXTURES, 'tickets', 'families', name);
  it.each([
    ['console-v0.10-free-addresses.log', ['subnet-addresses-exhausted Provisioner batch']],
    ['json-v0.34-resource-not-served.log', ['karpenter-api-version-mismatch Deployment karpenter']],
    ['console-v0.30-panic-nodepools.txt', ['karpenter-api-version-mismatch CustomResourceDefinition nodepools.karpenter.sh']],
    ['azure-v1-quota-records.log', ['launch-quota-or-throttling NodePool batch']],
    ['events-zonal-allocation.txt', ['insufficient-capacity-all-offerings NodePool general']],
    ['kubectl-helm-convert-cr.md', ['karpenter-api-version-mismatch HelmValues helm upgrade karpenter']],
  ])('%s', async (name, want) => {
    const { findings } = await scan([file(name)]);
    expect(findings.map(findingLabel)).toEqual(want);
  });

  it('an Azure code in a NodeClaim condition, and EC2 codes quoted in prose, are stated causes', async () => {
    const stated = async (name: string) =>
      (await scan([file(name)])).run.notEvaluatedFor.filter((n) => n.ruleId === 'insufficient-capacity-all-offerings' && n.stated).map((n) => n.reason);
    expect(await stated('azure-nodeclaim-sku-not-available.yaml')).toEqual([expect.stringContaining('SkuNotAvailable')]);
    expect(await stated('prose-quoted-ec2-code.md')).toEqual([expect.stringContaining('EC2 named p4d.24xlarge in us-east-2b')]);
  });
});
