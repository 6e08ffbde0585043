/**
 * Karpenter's "could not schedule pod" error, every generation (docs/karpenter-behaviour.md §8.3): ≤ v0.31 "Could not
 * schedule pod, incompatible with provisioner …", v0.32+ "could not schedule pod" with the reasons in `error` (and
 * the same text in `FailedScheduling` events as "Failed to schedule pod, …"), v1.5+ reasons naming their pool as a
 * structured value. Read into one clause per pool and reason, so rules ask which clause failed, not how it was said.
 */
import { controllerErrorsIn, type ControllerError } from './controller-errors.js';
import { firstMatch, type MessageTable, type Printed } from './classify.js';

/** The error is logged by every generation and repeated in the pod's FailedScheduling event. */
const SCHEDULE_ERROR: readonly Printed[] = ['console', 'json', 'controller-runtime', 'event'];

export type ClauseKind =
  | 'instance-types'
  | 'offering'
  | 'min-values'
  | 'taint'
  | 'label'
  | 'requirements'
  | 'volume'
  | 'limits'
  | 'topology'
  | 'host-ports'
  | 'zones-disjoint'
  /**
   * The controller failed before it could judge any pool (an AWS endpoint out of reach, no credentials from STS): a
   * cause of its own (`controller-errors.ts`), of which the pod's wait is a consequence, not a scheduling constraint.
   */
  | 'controller-error'
  | 'other';

export interface Clause {
  kind: ClauseKind;
  pool?: string;
  /** ≤ v0.31 texts name Provisioners. */
  poolKind?: 'NodePool' | 'Provisioner';
  /** The reason as Karpenter wrote it, without the pool prefix and daemonset overhead. */
  text: string;
  /** `does not have known values`: the label. */
  label?: string;
}

export const CLAUSES: MessageTable<ClauseKind> = [
  {
    // The pod's zone requirements have no zone in common (each bound zonal volume adds one, as do its selectors): the
    // empty intersection is written "topology.kubernetes.io/zone DoesNotExist" (core pkg/scheduling/requirement.go),
    // inside "no instance type satisfied … and requirements …" (≤ v1.2) or "key topology.kubernetes.io/zone, … DoesNotExist
    // not in …". Whatever the clause says after it, no instance type or offering can help.
    // The pod's side only: "… DoesNotExist not in <the pool's zones>", or among the requirements Karpenter tried
    // ("and requirements …" ≤ v1.2, "requirements=…" v1.3+); a pool whose own zones are empty reads the other way round.
    re: /topology\.kubernetes\.io\/zone, topology\.kubernetes\.io\/zone DoesNotExist not in|requirements[ =](?:(?!resources=)[^;])*?\btopology\.kubernetes\.io\/zone DoesNotExist/,
    signal: 'zones-disjoint',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, incompatible volume requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone DoesNotExist not in topology.kubernetes.io/zone In [eu-west-1b eu-west-1c]',
    printed: SCHEDULE_ERROR,
  },
  {
    re: /minValues requirement is not met|due to minValues/i,
    signal: 'min-values',
    example:
      'could not schedule pod, incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, minValues requirement is not met for "node.kubernetes.io/instance-type"',
    printed: SCHEDULE_ERROR,
  },
  // ≤ v1.2 "no instance type which had enough resources and the required offering met the scheduling requirements";
  // v1.3+ "… or had a required offering"; the ICE cache makes offerings unavailable for 3 minutes (docs/karpenter-behaviour.md §8.5).
  {
    re: /required offering|no instance type has the required offering/i,
    signal: 'offering',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, no instance type met the scheduling requirements or had a required offering, requirements=karpenter.sh/capacity-type In [spot], topology.kubernetes.io/zone In [eu-west-1a], resources={"cpu":"2200m","memory":"4Gi","pods":"4"}',
    printed: SCHEDULE_ERROR,
  },
  {
    // v0.4–v0.8 (binpacking/packer.go) named no reason: "Failed to find instance type option(s) for [pods]", "Failed to
    // compute packing, pod(s) [pods] did not fit in instance type option(s) [types]".
    re: /no instance type (?:satisfied resources|met (?:the scheduling requirements|all requirements)|has enough resources|which had enough resources)|no instance types satisfy requirements|failed to find instance type option|did not fit in instance type option/i,
    signal: 'instance-types',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, no instance type satisfied resources {"cpu":"36200m","memory":"16Gi","pods":"4"} and requirements karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [batch]',
    printed: SCHEDULE_ERROR,
  },
  { re: /did not tolerate/i, signal: 'taint', example: 'did not tolerate taint (taint=dedicated=gpu:NoSchedule)', printed: SCHEDULE_ERROR },
  {
    re: /does not have known values/i,
    signal: 'label',
    example: 'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, label "example.com/team" does not have known values',
    printed: SCHEDULE_ERROR,
  },
  {
    re: /incompatible volume requirements/i,
    signal: 'volume',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, incompatible volume requirements, key topology.ebs.csi.aws.com/zone, topology.ebs.csi.aws.com/zone In [eu-west-1a] not in topology.ebs.csi.aws.com/zone In [eu-west-1b]',
    printed: SCHEDULE_ERROR,
  },
  // v1.0+ "… exceed limits for nodepool …" (naming the pool), v1.12+ "node limits have been exhausted …"; v0.2x–v0.31
  // "all available instance types exceed provisioner limits", a clause of its own that names no Provisioner.
  {
    re: /exceed limits for (?:nodepool|provisioner)|exceed (?:nodepool|provisioner) limits|limits have been exhausted/i,
    signal: 'limits',
    example: 'all available instance types exceed limits for nodepool: "batch"',
    printed: SCHEDULE_ERROR,
  },
  {
    re: /unsatisfiable topology constraint/i,
    signal: 'topology',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, unsatisfiable topology constraint for topology spread, key=topology.kubernetes.io/zone (counts = map[eu-west-1a:3 eu-west-1b:0], podDomains = topology.kubernetes.io/zone Exists, nodeDomains = topology.kubernetes.io/zone In [eu-west-1a eu-west-1b])',
    printed: SCHEDULE_ERROR,
  },
  {
    re: /checking host port usage/i,
    signal: 'host-ports',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, checking host port usage, IP=0.0.0.0 Port=8080 Proto=TCP conflicts with existing HostPort configuration IP=0.0.0.0 Port=8080 Proto=TCP',
    printed: SCHEDULE_ERROR,
  },
  {
    re: /incompatible requirements|key \S+, .* not in |not in \S+ In \[/i,
    signal: 'requirements',
    example:
      'incompatible with nodepool "batch", daemonset overhead={"cpu":"200m","pods":"3"}, incompatible requirements, key karpenter.sh/capacity-type, karpenter.sh/capacity-type In [spot] not in karpenter.sh/capacity-type In [on-demand]',
    printed: SCHEDULE_ERROR,
  },
];

const POOL_PREFIX = /^incompatible with (nodepool|provisioner) "([^"]+)"(?:, daemonset overhead=\{[^}]*\})?,?\s*/i;
const LEAD = /^(?:Failed to schedule pod|Could not schedule pod),\s*/i;
/** v0.2x–v0.31 (pkg/controllers/provisioning/scheduling/scheduler.go): "all available instance types exceed provisioner limits". */
const UNNAMED_LIMITS = /exceed (?:nodepool|provisioner) limits/i;

/** Controller errors that stop scheduling before any pool is judged. */
const BEFORE_SCHEDULING = new Set<ControllerError>(['aws-endpoint-unreachable', 'sts-unreachable']);

function classifyClause(text: string): ClauseKind {
  if (controllerErrorsIn(text).some((e) => BEFORE_SCHEDULING.has(e))) return 'controller-error';
  return firstMatch(CLAUSES, text)?.signal ?? 'other';
}

/** The clauses of one error text, each with its pool when the text names it. */
export function parseScheduleError(raw: string): Clause[] {
  const text = raw.replace(LEAD, '').trim();
  const parts = text.split(/;\s*(?=incompatible with (?:nodepool|provisioner) ")/i);
  const out: Clause[] = [];
  for (const part of parts) {
    const m = POOL_PREFIX.exec(part);
    const body = m ? part.slice(m[0].length) : part;
    // v1.5+: several pools' reasons in one text, each naming its pool as a structured value. Before, a pool's reason
    // can be followed by one that names its own pool ("…; all available instance types exceed limits for nodepool: "x"").
    const pieces = body.split(/;\s+/);
    for (const piece of pieces) {
      if (!piece.trim()) continue;
      // ≤ v0.31's limits clause is a Provisioner's whole error, appended after the previous Provisioner's: it is not
      // that one's, and it names none.
      const inherited = UNNAMED_LIMITS.test(piece) ? undefined : m?.[2];
      const pool = /\bNodePool=([^,)\s]+)/.exec(piece)?.[1] ?? /for (?:nodepool|provisioner):? "([^"]+)"/i.exec(piece)?.[1] ?? inherited;
      const label = /label "([^"]+)" does not have known values/i.exec(piece)?.[1] ?? /does not have known values.*\(label=([^,)]+)/i.exec(piece)?.[1];
      const poolKind = m?.[1]?.toLowerCase() === 'provisioner' ? 'Provisioner' : 'NodePool';
      out.push({ kind: classifyClause(piece), text: piece.trim(), ...(pool ? { pool, poolKind } : {}), ...(label ? { label } : {}) });
    }
  }
  return out;
}

/** A simulation error that says why no pool fits the pod (not "would schedule against uninitialized nodeclaim/…", a pod waiting for a node). */
export function saysNoPoolFits(error: string): boolean {
  return /incompatible with (?:nodepool|provisioner)|no instance type/i.test(error) && !/uninitialized/i.test(error);
}

/** Karpenter's wording of the error (a FailedScheduling event from another scheduler does not lead with it). */
export function isKarpenterScheduleError(text: string): boolean {
  return LEAD.test(text);
}
