/**
 * Which extended resources every instance a NodePool may launch carries, proven from its requirements alone (there
 * is no instance catalog): a family, category, manufacturer or accelerator name that only such instances have, or
 * an instance-type list whose every family has it. Karpenter's `karpenter.k8s.aws/instance-*` labels and EKS Auto
 * Mode's `eks.amazonaws.com/instance-*` are read alike. A limit on such a resource caps the node count as surely as
 * a `nodes` limit does.
 */
import { AUTO_MODE_INSTANCE_LABEL_PREFIX, AWS_INSTANCE_LABEL_PREFIX, INSTANCE_TYPE_LABEL } from '../../kube/well-known.js';
import type { Requirement } from '../../snapshot/karpenter.js';

interface Accelerator {
  resources: readonly string[];
  /** Instance families that carry it (`g6e`, `inf2`, …). */
  family: RegExp;
  categories: readonly string[];
  gpuManufacturer?: string;
  acceleratorManufacturer?: string;
  acceleratorNames: readonly string[];
}

const ACCELERATORS: readonly Accelerator[] = [
  // g4ad is the one g family with AMD GPUs; a category g requirement is read as NVIDIA, as the pools that use it mean.
  { resources: ['nvidia.com/gpu'], family: /^(?!g4ad)[gp]\d/, categories: ['g', 'p'], gpuManufacturer: 'nvidia', acceleratorNames: [] },
  { resources: ['amd.com/gpu'], family: /^g4ad/, categories: [], gpuManufacturer: 'amd', acceleratorNames: [] },
  {
    resources: ['aws.amazon.com/neuron', 'aws.amazon.com/neuroncore', 'aws.amazon.com/neurondevice'],
    family: /^(inf|trn)\d/,
    categories: ['inf', 'trn'],
    acceleratorManufacturer: 'aws',
    acceleratorNames: ['inferentia', 'inferentia2', 'trainium', 'trainium2'],
  },
  { resources: ['habana.ai/gaudi'], family: /^dl1/, categories: [], acceleratorManufacturer: 'habana', acceleratorNames: ['gaudi-hl-205'] },
];

/** `karpenter.k8s.aws/instance-family` and `eks.amazonaws.com/instance-family` → `family`; other keys → undefined. */
function instanceLabel(key: string): string | undefined {
  for (const prefix of [AWS_INSTANCE_LABEL_PREFIX, AUTO_MODE_INSTANCE_LABEL_PREFIX]) if (key.startsWith(prefix)) return key.slice(prefix.length);
  return undefined;
}

/** One requirement proves it when every value it allows names a carrier. */
function proves(a: Accelerator, { key, operator, values }: Requirement): boolean {
  const label = instanceLabel(key);
  if (label === 'gpu-count') return a.gpuManufacturer === 'nvidia' && (operator === 'Gt' || operator === 'Gte') && Number(values[0]) >= 0;
  if (operator !== 'In' || values.length === 0) return false;
  if (key === INSTANCE_TYPE_LABEL) return values.every((t) => a.family.test(t.split('.')[0]!));
  switch (label) {
    case 'family':
      return values.every((v) => a.family.test(v));
    case 'category':
      return values.every((v) => a.categories.includes(v));
    case 'gpu-manufacturer':
      return a.gpuManufacturer !== undefined && values.every((v) => v.toLowerCase() === a.gpuManufacturer);
    case 'accelerator-manufacturer':
      return a.acceleratorManufacturer !== undefined && values.every((v) => v.toLowerCase() === a.acceleratorManufacturer);
    case 'accelerator-name':
      return values.every((v) => a.acceleratorNames.includes(v.toLowerCase()));
    default:
      return false;
  }
}

/** Whether every instance type the requirements allow carries `resource` (e.g. `aws.amazon.com/neuroncore`). */
export function everyInstanceCarries(resource: string, requirements: readonly Requirement[]): boolean {
  const a = ACCELERATORS.find((x) => x.resources.includes(resource));
  return a !== undefined && requirements.some((r) => proves(a, r));
}

/** Requirement keys that decide which instance types a pool may launch. */
export function selectsInstances(key: string): boolean {
  return key === INSTANCE_TYPE_LABEL || instanceLabel(key) !== undefined;
}
