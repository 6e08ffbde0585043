/** The two message tables of catalog section 7: launch errors → causes, "could not schedule pod" → per-pool clauses. */
import { describe, expect, it } from 'vitest';
import { classifyLaunchError } from '../src/rules/lib/launch-failures.js';
import { parseScheduleError } from '../src/rules/lib/scheduling-failures.js';

const codes = (text: string) => classifyLaunchError(text).map((c) => `${c.family}:${c.code}`);

describe('classifyLaunchError', () => {
  it('reads the fleet code inside insufficient-capacity wording (quota and subnet codes take that path)', () => {
    expect(
      codes(
        'creating instance, insufficient capacity, with fleet error(s), VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 64 allows',
      ),
    ).toEqual(['quota:VcpuLimitExceeded']);
    expect(codes('insufficient capacity, with fleet error(s), InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet')).toEqual([
      'subnet:InsufficientFreeAddressesInSubnet',
    ]);
    expect(codes('insufficient capacity, all requested instance types were unavailable during launch')).toEqual(['capacity:InsufficientCapacity']);
  });
  it('keeps every code of mixed fleet errors', () => {
    expect(codes('with fleet error(s), InsufficientInstanceCapacity: no capacity; MaxSpotInstanceCountExceeded: Max spot instance count exceeded')).toEqual([
      'quota:MaxSpotInstanceCountExceeded',
      'capacity:InsufficientInstanceCapacity',
    ]);
  });
  it('reads the Launched reasons of AWS v1.2+ as well as the EC2 codes', () => {
    expect(codes('VCPULimitExceeded: An instance was requested that would exceed your VCPU quota')).toEqual(['quota:VcpuLimitExceeded']);
    expect(codes('InstanceProfileNameInvalid: Instance profile name used from EC2NodeClass status does not exist')).toEqual([
      'refused:InstanceProfileNameInvalid',
    ]);
    expect(codes("LaunchTemplateNotFound: Launch template used for instance launch wasn't found")).toEqual(['refused:LaunchTemplateNotFound']);
  });
  it('an authorisation failure about the Spot role or an AMI is that cause, not a general one', () => {
    expect(
      codes(
        'AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
      ),
    ).toEqual(['refused:SpotSLRCreationFailed']);
    expect(codes('UnauthorizedOperation: You are not authorized to perform: ec2:RunInstances')).toEqual(['refused:UnauthorizedOperation']);
  });
  it('names the EC2NodeClass selector that points at something missing', () => {
    expect(
      codes("creating instance, with fleet error(s), InvalidGroup.NotFound: The security group 'sg-0b1c2d3e4f5a6b7c8' does not exist in VPC 'vpc-0a1b2c3d'"),
    ).toEqual(['refused:SecurityGroupNotFound']);
    expect(codes("InvalidSubnetID.NotFound: The subnet ID 'subnet-0f1e2d3c' does not exist")).toEqual(['refused:SubnetNotFound']);
  });
  it("reads the controller's own credentials refused (IRSA) and the fleet's Unsupported answer", () => {
    expect(
      codes(
        'fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\ncaused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity',
      ),
    ).toEqual(['refused:AssumeRoleWithWebIdentity']);
    // STS out of reach is not a refusal: no code, the not-a-finding line says what it is.
    expect(codes('WebIdentityErr: failed to retrieve credentials\ncaused by: RequestError: send request failed\ncaused by: dial tcp: i/o timeout')).toEqual([]);
    expect(codes('launching instances, with fleet error(s), Unsupported: The requested configuration is currently not supported.')).toEqual([
      'capacity:Unsupported',
    ]);
  });
  it('any other parameter EC2 rejects is a refusal, unless a row names its own cause', () => {
    expect(
      codes(
        'launching nodeclaim, creating instance, with fleet error(s), InvalidParameterValue: You cannot specify tags for Spot instances requests if there are no Spot instances requests being created by the request.',
      ),
    ).toEqual(['refused:InvalidParameter']);
    expect(codes('InvalidParameterValue: Value (lab_123) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name')).toEqual([
      'refused:InstanceProfileNameInvalid',
    ]);
  });
  it('says nothing about texts that are not launch errors', () => {
    expect(codes('Instance launch failed')).toEqual([]);
    expect(codes('registered nodeclaim')).toEqual([]);
  });
});

describe('parseScheduleError', () => {
  it('≤ v1.4: one clause per "incompatible with nodepool", the overhead JSON kept out of the clause', () => {
    const clauses = parseScheduleError(
      'Failed to schedule pod, incompatible with nodepool "gpu", daemonset overhead={"cpu":"210m","memory":"340Mi","pods":"4"}, did not tolerate nvidia.com/gpu=true:NoSchedule; ' +
        'incompatible with nodepool "default", daemonset overhead={"cpu":"210m","memory":"340Mi","pods":"4"}, incompatible requirements, label "team" does not have known values',
    );
    expect(clauses).toEqual([
      { kind: 'taint', pool: 'gpu', poolKind: 'NodePool', text: 'did not tolerate nvidia.com/gpu=true:NoSchedule' },
      { kind: 'label', pool: 'default', poolKind: 'NodePool', label: 'team', text: 'incompatible requirements, label "team" does not have known values' },
    ]);
  });
  it('v1.5+: pools named as structured values', () => {
    const [c] = parseScheduleError(
      'no instance type met the scheduling requirements or had enough resources, requirements=kubernetes.io/arch In [arm64], resources={"cpu":"30"} (NodePool=arm-spot)',
    );
    expect(c).toMatchObject({ kind: 'instance-types', pool: 'arm-spot' });
    expect(parseScheduleError('minValues requirement is not met for label(s) (label=karpenter.k8s.aws/instance-family, NodePool=spot)')[0]).toMatchObject({
      kind: 'min-values',
      pool: 'spot',
    });
  });
  it('≤ v0.31: Provisioners; offerings and limits are their own clauses', () => {
    expect(
      parseScheduleError(
        'Could not schedule pod, incompatible with provisioner "default", daemonset overhead={"cpu":"200m"}, no instance type satisfied resources {"cpu":"1"} and requirements x In [y] (no instance type which had enough resources and the required offering met the scheduling requirements)',
      )[0],
    ).toMatchObject({
      kind: 'offering',
      pool: 'default',
      poolKind: 'Provisioner',
    });
    expect(parseScheduleError('all available instance types exceed limits for nodepool: "batch"')[0]).toMatchObject({ kind: 'limits', pool: 'batch' });
  });
  it("≤ v1.4: a reason after a pool's own, naming another pool, is a clause of that pool", () => {
    expect(
      parseScheduleError(
        'incompatible with nodepool "default", did not tolerate taint (taint=team=etl:NoSchedule); all available instance types exceed limits for nodepool: "etl"',
      ),
    ).toEqual([
      { kind: 'taint', pool: 'default', poolKind: 'NodePool', text: 'did not tolerate taint (taint=team=etl:NoSchedule)' },
      { kind: 'limits', pool: 'etl', poolKind: 'NodePool', text: 'all available instance types exceed limits for nodepool: "etl"' },
    ]);
  });
});
