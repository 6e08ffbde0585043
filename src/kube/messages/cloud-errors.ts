/**
 * The cloud providers' error codes Karpenter passes on when a launch fails (docs/karpenter-behaviour.md §8.4, §8.5,
 * "Message catalog"): EC2 / IAM / STS codes inside fleet and API errors, Azure Resource Manager codes inside
 * `RESPONSE 4xx … ERROR CODE: X` bodies. The cloud prints them, not Karpenter, so every Karpenter generation carries
 * the same code in its own wrapping (a ≤ v0.31 console line, a v0.32–v0.36 JSON message, a v0.37+ `error` field, a
 * NodeClaim's `Launched` condition or an event). This is vocabulary at the bottom layer: readers recognise a pasted
 * line by it, `snapshot/messages/` classifies with it.
 */

export type CloudProvider = 'aws' | 'azure';

/** What stopped the launch: no capacity, no address, a quota, throttling, or a refusal (permissions, configuration). */
export type LaunchFamily = 'capacity' | 'subnet' | 'quota' | 'throttling' | 'refused';

/** Fields a message of the row names, so that a rule knows what it can read out of it. */
export type MessageField = 'pool' | 'nodeclaim' | 'instance-types' | 'zone' | 'subnet' | 'code' | 'action' | 'principal' | 'quota' | 'endpoint';

/**
 * What a retry of the same request meets: `repeats` while the cause stands (a permission, a configuration value, a
 * quota, a full subnet — fixed by someone, not by time), `may-pass` when the error can clear by itself (capacity comes
 * back, throttling eases, Karpenter recreates a launch template it lost, EC2 answers one request differently).
 */
export type RetryOutcome = 'repeats' | 'may-pass';

const RETRY_BY_FAMILY: Record<LaunchFamily, RetryOutcome> = {
  refused: 'repeats',
  quota: 'repeats',
  subnet: 'repeats',
  capacity: 'may-pass',
  throttling: 'may-pass',
};

/** A row's retry outcome: its own when it differs from its family's. */
export function retryOutcome(row: Pick<CloudErrorRow, 'family' | 'retry'>): RetryOutcome {
  return row.retry ?? RETRY_BY_FAMILY[row.family];
}

export interface CloudErrorRow {
  /** The code as the provider spells it (or, for a family of codes, the name Karpenter's rules use); the row's id in docs/karpenter-behaviour.md. */
  code: string;
  provider: CloudProvider;
  family: LaunchFamily;
  /** Reads after "launches fail with": what the code means for the cluster. */
  label: string;
  /** The code, and the provider's own wordings of it where a paste may carry the text without the code. */
  re: RegExp;
  carries: readonly MessageField[];
  /** When a retry of the same request can pass though the family's does not (see RetryOutcome). */
  retry?: RetryOutcome;
  /** The error as the cloud returns it, quoted alone (see MessageRow.example). */
  example?: string;
}

/**
 * Ordered: authorisation first, as Karpenter's `ToReasonMessage` checks it first; generic rows (any InvalidParameter,
 * plain "insufficient capacity") last, so they count only when no code says more (see `classifyCloudError`).
 */
export const CLOUD_ERRORS: readonly CloudErrorRow[] = [
  {
    code: 'SpotSLRCreationFailed',
    example:
      'AuthFailure.ServiceLinkedRoleCreationNotPermitted: The provided credentials do not have permission to create the service-linked role for EC2 Spot Instances.',
    provider: 'aws',
    family: 'refused',
    label: 'the Spot service-linked role does not exist and may not be created',
    re: /AuthFailure\.ServiceLinkedRoleCreationNotPermitted|\bSpotSLRCreationFailed\b/,
    carries: ['code'],
  },
  {
    // IRSA / Pod Identity: the controller's own credentials are refused, so every AWS call fails, launches included.
    code: 'AssumeRoleWithWebIdentity',
    example:
      'WebIdentityErr: failed to retrieve credentials caused by: AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity status code: 403, request id: 5d0c7a31-2e4b-4f19-9a6e-8c1b3d2f7e40',
    provider: 'aws',
    family: 'refused',
    label: 'the controller cannot assume its IAM role (sts:AssumeRoleWithWebIdentity is denied)',
    re: /AssumeRoleWithWebIdentity|WebIdentityErr: failed to retrieve credentials[\s\S]*\bAccessDenied\b/,
    carries: ['action'],
  },
  {
    code: 'iam:PassRole',
    example:
      'UnauthorizedOperation: You are not authorized to perform this operation. User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-lab/1733212800 is not authorized to perform: iam:PassRole on resource: arn:aws:iam::111122223333:role/KarpenterNodeRole-lab',
    provider: 'aws',
    family: 'refused',
    label: 'the controller may not pass the node role (iam:PassRole)',
    re: /iam:PassRole/,
    carries: ['action', 'principal'],
  },
  {
    code: 'UnauthorizedOperation',
    example: 'UnauthorizedOperation: You are not authorized to perform this operation. Encoded authorization failure message: q8Zt3vW0pLx2',
    provider: 'aws',
    family: 'refused',
    label: 'the controller is not authorised to launch',
    re: /\bUnauthorizedOperation\b|\bAccessDenied(?:Exception)?\b|\bAuthFailure\b|\bUnauthorized\b|not authorized to perform/,
    carries: ['code', 'action', 'principal'],
  },
  {
    // Azure Resource Manager's RBAC refusal (403): the controller's identity lacks a role on the VM's resource group, or
    // `LinkedAuthorizationFailed` on a resource the VM links to (the BYO subnet's `…/subnets/join/action`, an image).
    code: 'AuthorizationFailed',
    example:
      "AuthorizationFailed: The client 'a1b2c3d4-0000-4000-8000-00000000beef' with object id 'a1b2c3d4-0000-4000-8000-00000000beef' does not have authorization to perform action 'Microsoft.Compute/virtualMachines/write' over scope '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/MC_lab/providers/Microsoft.Compute/virtualMachines/aks-general-x1' or the scope is invalid.",
    provider: 'azure',
    family: 'refused',
    label: "the controller's identity lacks an Azure role assignment for the VM or a resource it links (AuthorizationFailed)",
    re: /\b(?:Linked)?AuthorizationFailed\b|does not have authorization to perform action/,
    carries: ['code', 'action', 'principal'],
  },
  {
    code: 'InstanceProfileNameInvalid',
    example:
      'InvalidParameterValue: Value (KarpenterNodeInstanceProfile-lab) for parameter iamInstanceProfile.name is invalid. Invalid IAM Instance Profile name',
    provider: 'aws',
    family: 'refused',
    label: 'the instance profile does not exist',
    re: /iamInstanceProfile\.name is invalid|Invalid IAM Instance Profile|\bInstanceProfileNameInvalid\b|instance profile \S+ (?:not found|does not exist)/i,
    carries: ['code'],
  },
  {
    code: 'LaunchTemplateNotFound',
    example: 'InvalidLaunchTemplateId.NotFound: The specified launch template, with template ID lt-0a1b2c3d4e5f60718, does not exist.',
    provider: 'aws',
    family: 'refused',
    label: 'the launch template was not found',
    re: /InvalidLaunchTemplate(?:Id|Name)\.NotFound|\bLaunchTemplateNotFound\b/,
    carries: ['code'],
    // Karpenter drops the template from its cache on this error and creates it again for the next launch.
    retry: 'may-pass',
  },
  {
    code: 'AMIAuthorizationFailure',
    example: "InvalidAMIID.Unavailable: The image ID 'ami-0a1b2c3d4e5f60718' is no longer available",
    provider: 'aws',
    family: 'refused',
    label: 'the account may not use the AMI',
    re: /\bAMIAuthorizationFailure\b|not authorized to (?:use|launch) (?:the )?(?:AMI|image)|InvalidAMIID\.Unavailable/i,
    carries: ['code'],
  },
  {
    code: 'InvalidAMIID',
    example: "InvalidAMIID.NotFound: The image id '[ami-0123456789abcdef0]' does not exist",
    provider: 'aws',
    family: 'refused',
    label: 'the AMI does not exist',
    re: /InvalidAMIID(?:\.(?:Malformed|NotFound))?\b|\bAMINotFound\b/,
    carries: ['code'],
  },
  {
    code: 'UserDataSizeLimitExceeded',
    example: 'InvalidParameterValue: User data is limited to 16384 bytes',
    provider: 'aws',
    family: 'refused',
    label: 'the user data is larger than EC2 accepts (16 KB)',
    re: /\bUserDataSizeLimitExceeded\b|User data is limited to \d+ bytes/i,
    carries: ['code'],
  },
  {
    code: 'SecurityGroupSubnetVPCMismatch',
    example: 'InvalidParameter: Security group sg-0a1b2c3d4e5f60718 and subnet subnet-0f1e2d3c4b5a69788 belong to different networks.',
    provider: 'aws',
    family: 'refused',
    label: 'the security groups and subnets are in different VPCs',
    re: /\bSecurityGroupSubnetVPCMismatch\b|belong to different networks|security groups? .* (?:and|is not in the same VPC as) (?:the )?subnet/i,
    carries: ['code'],
  },
  {
    code: 'SecurityGroupNotFound',
    example: "InvalidGroup.NotFound: The security group 'sg-0a1b2c3d4e5f60718' does not exist in VPC 'vpc-0c0ffee0c0ffee000'",
    provider: 'aws',
    family: 'refused',
    label: "a selected security group does not exist (in the subnet's VPC)",
    re: /InvalidGroup\.NotFound|security group '?sg-[0-9a-f]+'? does not exist/i,
    carries: ['code'],
  },
  {
    code: 'SubnetNotFound',
    example: "InvalidSubnetID.NotFound: The subnet ID 'subnet-0a1b2c3d4e5f60718' does not exist",
    provider: 'aws',
    family: 'refused',
    label: 'a selected subnet does not exist',
    re: /InvalidSubnetID\.NotFound|subnet ID '?subnet-[0-9a-f]+'? does not exist/i,
    carries: ['code', 'subnet'],
  },
  {
    code: 'InvalidBlockDeviceMapping',
    example: "InvalidBlockDeviceMapping: Volume of size 8GB is smaller than snapshot 'snap-0a1b2c3d4e5f60718', expect size >= 30GB",
    provider: 'aws',
    family: 'refused',
    label: 'the block device mappings are invalid for the AMI or instance type',
    re: /\bInvalidBlockDeviceMapping\b/,
    carries: ['code'],
  },
  {
    code: 'PendingVerification',
    example:
      'PendingVerification: Your request for accessing resources in this region is being validated, and you will not be able to launch additional resources in this region until the validation is complete.',
    provider: 'aws',
    family: 'refused',
    label: 'the account is still being verified for this region',
    re: /\bPendingVerification\b|\bAccountPendingVerification\b/,
    carries: ['code'],
  },
  {
    // EC2 refuses the whole request before looking at its parameters, e.g. a CreateFleet body over EC2's size limit
    // (reported on v0.35.0, https://github.com/aws/karpenter-provider-aws/issues/5776): no parameter to fix in the pool.
    code: 'InvalidInput',
    example: 'InvalidInput: The payload for the body of the request is too large.',
    provider: 'aws',
    family: 'refused',
    label: 'EC2 rejects the launch request itself (InvalidInput), e.g. a CreateFleet body larger than EC2 accepts',
    re: /\bInvalidInput\b|payload for the body of the request is too large/,
    carries: ['code'],
  },
  {
    // Any other parameter EC2 rejects (tags on a request with no Spot part, a volume option the type does not take):
    // counted only when no row above names the parameter's own cause.
    code: 'InvalidParameter',
    example: 'InvalidParameterCombination: Network interfaces and an instance-level security groups may not be specified on the same request',
    provider: 'aws',
    family: 'refused',
    label: 'EC2 rejects a parameter of the launch request (InvalidParameterValue)',
    re: /\bInvalidParameter(?:Value|Combination)?\b/,
    carries: ['code'],
    // Without a row naming the parameter, it may be EC2's answer to that one request (a transient inconsistency).
    retry: 'may-pass',
  },
  {
    // The v2 AWS SDK (aws-sdk-go-v2, whose errors read `operation error EC2: …`) gives up before it calls EC2 when its own retry token bucket
    // is empty: `operation error EC2: DescribeLaunchTemplates, failed to get rate limit token, retry quota exceeded, 0
    // available, 5 requested`. The bucket drains on retried errors (throttling first), so it is throttling seen from
    // the client: no code from EC2, and no request sent.
    code: 'RetryQuotaExceeded',
    example: 'operation error EC2: DescribeLaunchTemplates, failed to get rate limit token, retry quota exceeded, 0 available, 5 requested',
    provider: 'aws',
    family: 'throttling',
    label: "the AWS SDK's client-side retry quota is used up (EC2 calls are being retried, usually throttled, faster than they succeed)",
    re: /failed to get rate limit token|\bretry quota exceeded\b/,
    carries: ['action'],
  },
  {
    code: 'RequestLimitExceeded',
    example: 'RequestLimitExceeded: Request limit exceeded.',
    provider: 'aws',
    family: 'throttling',
    label: 'EC2 API requests are throttled (RequestLimitExceeded)',
    re: /\bRequestLimitExceeded\b|\bThrottling(?:Exception)?\b|Rate exceeded/,
    carries: ['code', 'action'],
  },
  {
    code: 'VcpuLimitExceeded',
    example:
      'VcpuLimitExceeded: You have requested more vCPU capacity than your current vCPU limit of 256 allows for the instance bucket that the specified instance type belongs to.',
    provider: 'aws',
    family: 'quota',
    label: 'the vCPU quota of the account is used up',
    // EC2's text names the code's meaning when a console or CLI paste leaves the code out.
    re: /\bVcpuLimitExceeded\b|\bVCPULimitExceeded\b|requested more vCPU capacity than your current vCPU limit/,
    carries: ['code', 'quota'],
  },
  {
    code: 'MaxSpotInstanceCountExceeded',
    example: 'MaxSpotInstanceCountExceeded: Max spot instance count exceeded',
    provider: 'aws',
    family: 'quota',
    label: 'the Spot instance quota is used up',
    re: /\bMaxSpotInstanceCountExceeded\b|\bSpotQuotaExceeded\b|Max spot instance count exceeded/i,
    carries: ['code'],
  },
  {
    code: 'MaxFleetCountExceeded',
    example: 'MaxFleetCountExceeded: The maximum number of active fleets for the account has been reached.',
    provider: 'aws',
    family: 'quota',
    label: 'the EC2 Fleet request quota is used up',
    re: /\bMaxFleetCountExceeded\b|\bFleetQuotaExceeded\b/,
    carries: ['code'],
  },
  {
    code: 'InstanceLimitExceeded',
    example: 'InstanceLimitExceeded: Your quota allows for 0 more running instance(s). You requested at least 1.',
    provider: 'aws',
    family: 'quota',
    label: 'the instance quota is used up',
    re: /\bInstanceLimitExceeded\b/,
    carries: ['code'],
  },
  {
    code: 'InsufficientFreeAddressesInSubnet',
    example:
      "InsufficientFreeAddressesInSubnet: There are not enough free addresses in subnet 'subnet-0a1b2c3d4e5f60718' to satisfy the requested number of instances.",
    provider: 'aws',
    family: 'subnet',
    label: 'the subnets have no free IP addresses',
    re: /\bInsufficientFreeAddressesInSubnet\b|not enough free addresses in subnet/,
    carries: ['code', 'subnet'],
  },
  {
    code: 'InsufficientInstanceCapacity',
    example:
      'InsufficientInstanceCapacity: We currently do not have sufficient p4d.24xlarge capacity in the Availability Zone you requested (us-east-1b). Our system will be working on provisioning additional capacity.',
    provider: 'aws',
    family: 'capacity',
    label: 'EC2 has no capacity for the requested instance types (InsufficientInstanceCapacity)',
    re: /\bInsufficientInstanceCapacity\b/,
    carries: ['code', 'instance-types', 'zone'],
  },
  {
    code: 'UnfulfillableCapacity',
    example: 'UnfulfillableCapacity: Unable to fulfill capacity due to your request configuration. Please adjust your request and try again.',
    provider: 'aws',
    family: 'capacity',
    label: 'the request cannot be fulfilled with the allowed offerings (UnfulfillableCapacity)',
    re: /\bUnfulfillableCapacity\b/,
    carries: ['code'],
  },
  {
    // The fleet's "not supported in this zone" answer: Karpenter caches the offering as unavailable, as for ICE.
    code: 'Unsupported',
    example: 'Unsupported: The requested configuration is currently not supported. Please check the documentation for supported configurations.',
    provider: 'aws',
    family: 'capacity',
    label: 'EC2 does not offer the requested instance type in that zone (Unsupported)',
    re: /\bUnsupported: The requested configuration is currently not supported/,
    carries: ['code', 'instance-types', 'zone'],
  },
  {
    code: 'ReservationCapacityExceeded',
    example: 'ReservationCapacityExceeded: The requested reservation does not have sufficient compatible and available capacity for this request.',
    provider: 'aws',
    family: 'capacity',
    label: 'the capacity reservation is used up (ReservationCapacityExceeded)',
    re: /\bReservationCapacityExceeded\b/,
    carries: ['code'],
  },
  {
    // Spot priced above the on-demand price Karpenter bids: no Spot capacity at that price.
    code: 'SpotMaxPriceTooLow',
    example: 'SpotMaxPriceTooLow: Your Spot request price of 0.0416 is lower than the minimum required Spot request fulfillment price of 0.0472.',
    provider: 'aws',
    family: 'capacity',
    label: 'the Spot price is above what Karpenter bids (SpotMaxPriceTooLow)',
    re: /\bSpotMaxPriceTooLow\b/,
    carries: ['code'],
  },
  {
    code: 'SubnetIsFull',
    example:
      'SubnetIsFull: Subnet /subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/lab/providers/Microsoft.Network/virtualNetworks/lab-vnet/subnets/aks-nodes with address prefix 10.224.0.0/24 does not have enough capacity for 1 IP addresses.',
    provider: 'azure',
    family: 'subnet',
    label: 'the subnet has no free IP addresses (SubnetIsFull)',
    re: /\bSubnetIsFull\b/,
    carries: ['code', 'subnet'],
  },
  {
    // Spot VMs count against the subscription's LowPriorityCores quota, not a family's. The Azure provider (v0.4+)
    // words it itself: "this subscription has reached the regional vCPU quota for spot (LowPriorityQuota)"
    // (azure:pkg/providers/instance/offerings/commonerrorhandlers.go@v1.14.2, instance.go@v0.4.0).
    code: 'LowPriorityQuota',
    example:
      'OperationNotAllowed: Operation could not be completed as it results in exceeding approved LowPriorityCores quota. Additional details - Deployment Model: Resource Manager, Location: northeurope, Current Limit: 20, Current Usage: 16, Additional Required: 8',
    provider: 'azure',
    family: 'quota',
    label: "the subscription's Spot (LowPriorityCores) vCPU quota is used up",
    re: /\bLowPriorityQuota\b|exceeding approved (?:Total )?LowPriorityCores quota/i,
    carries: ['code', 'quota'],
  },
  {
    // Azure's quota refusal is OperationNotAllowed with the quota in its text; the code alone is also used for other
    // refusals. The Azure provider (v0.2+) replaces it with its own words: "regional <capacity type> vCPU quota limit
    // for subscription has been reached", "subscription level <capacity type> vCPU quota for <size> has been reached".
    code: 'QuotaExceeded',
    example:
      'OperationNotAllowed: Operation could not be completed as it results in exceeding approved standardDSv5Family Cores quota. Location: westeurope, Current Limit: 100, Current Usage: 96, Additional Required: 8',
    provider: 'azure',
    family: 'quota',
    label: "the subscription's cores quota is used up",
    re: /\bQuotaExceeded\b|exceeding approved [\w ]*Cores quota|exceeding quota limits? of Core|regional capacity limit for your subscription has been reached|regional [\w-]+ vCPU quota limit for subscription has been reached|subscription level [\w-]+ vCPU quota for \S+ has been reached/i,
    carries: ['code', 'quota'],
  },
  {
    // The provider's own words (v0.2+): "the requested SKU is unavailable for instance type <size> in zone <zone> with capacity type <type>".
    code: 'SkuNotAvailable',
    example:
      "SkuNotAvailable: The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: Standard_D8s_v5' is currently not available in location 'westeurope'.",
    provider: 'azure',
    family: 'capacity',
    label: 'the VM size is not available in that location or zone, or out of Spot capacity (SkuNotAvailable)',
    re: /\bSkuNotAvailable\b|the requested SKU is unavailable for instance type/i,
    carries: ['code', 'instance-types', 'zone'],
  },
  {
    // "unable to allocate resources in the selected zone (<zone>). (will try a different zone …)" (v0.2+); the same
    // words followed by "with <type> capacity type" are the overconstrained zonal failure (v1.4+), the next row.
    code: 'ZonalAllocationFailed',
    example: 'ZonalAllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size in this zone.',
    provider: 'azure',
    family: 'capacity',
    label: 'Azure cannot allocate the VM size in that zone (ZonalAllocationFailed)',
    re: /\bZonalAllocationFail(?:ed|ure)\b|unable to allocate resources in the selected zone(?![^.]* with [\w-]+ capacity type)/i,
    carries: ['code', 'zone'],
  },
  {
    // v1.4+: "unable to allocate resources in the selected zone (<zone>) with <type> capacity type and <size> VM size",
    // "unable to allocate resources in all zones with <type> capacity type and <size> VM size".
    code: 'OverconstrainedAllocationRequest',
    example:
      'OverconstrainedAllocationRequest: Allocation failed. VM(s) with the following constraints cannot be allocated, because the condition is too restrictive.',
    provider: 'azure',
    family: 'capacity',
    label: 'Azure cannot allocate a VM with all the requested constraints (OverconstrainedAllocationRequest)',
    re: /\bOverconstrained(?:Zonal)?Allocation(?:Request|Failure)?\b|unable to allocate resources in (?:the selected zone \([^)]*\)|all zones) with [\w-]+ capacity type/i,
    carries: ['code', 'zone'],
  },
  {
    // v1.4+: "unable to allocate resources with selected VM size (<size>). (will try a different VM size …)".
    code: 'AllocationFailed',
    example: 'AllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size in this region.',
    provider: 'azure',
    family: 'capacity',
    label: 'Azure has no capacity for the VM size (AllocationFailed)',
    re: /\bAllocationFail(?:ed|ure)\b|unable to allocate resources with selected VM size/i,
    carries: ['code', 'instance-types'],
  },
  {
    code: 'InsufficientCapacity',
    example: 'insufficient capacity, all requested instance types were unavailable during launch',
    provider: 'aws',
    family: 'capacity',
    label: 'insufficient capacity on every requested offering',
    re: /all requested instance types were unavailable|insufficient capacity|\bInsufficientCapacity(?:Error)?\b/i,
    carries: [],
  },
];

/** The row that stands for any capacity failure a text names without a code. */
export const GENERIC_CAPACITY = 'InsufficientCapacity';

/** Every code a text names, once each, in table order; the generic rows only when no specific row says more. */
export function classifyCloudError(text: string): CloudErrorRow[] {
  const out: CloudErrorRow[] = [];
  for (const row of CLOUD_ERRORS) {
    if (!row.re.test(text)) continue;
    if (row.code === GENERIC_CAPACITY && out.length) continue;
    if (row.code === 'InvalidParameter' && out.some((c) => c.family === 'refused')) continue;
    // "not authorized" inside an AMI or Spot-role text is that cause, not a general authorisation failure.
    if (row.code === 'UnauthorizedOperation' && out.some((c) => c.family === 'refused')) continue;
    // ZonalAllocationFailed / Overconstrained… already say "allocation failed" more precisely.
    if (row.code === 'AllocationFailed' && out.some((c) => c.provider === 'azure' && c.family === 'capacity')) continue;
    // Spot's LowPriorityCores quota is a cores quota too; the row that names it says which.
    if (row.code === 'QuotaExceeded' && out.some((c) => c.code === 'LowPriorityQuota')) continue;
    out.push(row);
  }
  return out;
}

/** A pasted line that carries a cloud error code (not the generic capacity wording): worth reading as an error. */
export function namesCloudError(text: string): boolean {
  return CLOUD_ERRORS.some((row) => row.code !== GENERIC_CAPACITY && row.code !== 'InvalidParameter' && row.re.test(text));
}

/**
 * The v2 AWS SDK's wrapping of a failed call, which Karpenter passes on unchanged inside its own chain: `operation error
 * EC2: CreateFleet, https response error StatusCode: 503, RequestID: …, api error RequestLimitExceeded: …`. A ticket
 * often quotes only this part, so it opens a launch error of its own when a row above names its code.
 */
const AWS_SDK_OPERATION_ERROR = /^operation error [A-Z][A-Za-z0-9]+: [A-Z][A-Za-z]+, /;

/** A text that is the AWS SDK's report of a failed call carrying a code of the table (any row, the generic ones too). */
export function isSdkCloudError(text: string): boolean {
  return AWS_SDK_OPERATION_ERROR.test(text) && classifyCloudError(text).length > 0;
}

/** The offerings an EC2 ICE text names: "We currently do not have sufficient g5.12xlarge capacity in the Availability Zone you requested (us-west-2a)". */
export function offeringsWithoutCapacity(text: string): Array<{ instanceType: string; zone: string }> {
  return [...text.matchAll(/sufficient (\S+) capacity in the Availability Zone you requested \(([^)]+)\)/g)].map((m) => ({ instanceType: m[1]!, zone: m[2]! }));
}

/** What an authorisation failure says: the action denied, and whether an SCP or a permissions boundary denied it. */
export function authorizationDenied(text: string): { action?: string; by?: 'service-control-policy' | 'permissions-boundary' } {
  const action = /not authorized to perform:? ([\w-]+:[\w*]+)/i.exec(text)?.[1];
  const by = /service control policy/i.test(text) ? 'service-control-policy' : /permissions boundary/i.test(text) ? 'permissions-boundary' : undefined;
  return { ...(action ? { action } : {}), ...(by ? { by } : {}) };
}
