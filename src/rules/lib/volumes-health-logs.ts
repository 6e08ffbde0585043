/**
 * The provisioning story told by the controller logs, in all three log generations (docs/karpenter-behaviour.md §8.1–8.2):
 * ≤ v0.31 console ("created machine", `machine`/`provisioner`), v0.32–v0.36 JSON (`nodeclaim`/`nodepool`/`pods`),
 * v0.37+/v1 controller-runtime JSON (`NodeClaim: {name}`, `NodePool: {name}`, `Pods`).
 */
import type { LogRecord } from '../../kube/types.js';
import { isRecord, str } from '../../kube/fields.js';
import { parseTime } from '../../kube/units.js';
import { logRefs, logSays } from '../../snapshot/messages/karpenter-logs.js';

export interface ProvisioningLog {
  found: Array<{ ms: number; pods: string[]; log: LogRecord }>;
  created: Array<{ ms: number; claim: string; pool?: string; log: LogRecord }>;
  createdByClaim: Map<string, { ms: number; claim: string; pool?: string; log: LogRecord }>;
  launched: Map<string, { zone?: string; instanceType?: string; log: LogRecord }>;
  registered: Map<string, string>; // node → claim
  /** NodeClaims (or nodes) removed as empty, with the record that says so. */
  emptied: Array<{ names: string[]; log: LogRecord }>;
  deleted: Map<string, LogRecord>;
}

/** `{"NodeClaim":{"name":"x"}}`, `{"nodeclaim":"x"}`, `{"machine":"x"}` → x. */
/** `"default/a, default/b and 3 other(s)"` → [default/a, default/b]. */
function podList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v !== 'string') return [];
  return v
    .replace(/\s+and \d+ other\(s\)\s*$/, '')
    .split(/,\s*/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function provisioningLog(logs: readonly LogRecord[]): ProvisioningLog {
  const out: ProvisioningLog = {
    found: [],
    created: [],
    createdByClaim: new Map(),
    launched: new Map(),
    registered: new Map(),
    emptied: [],
    deleted: new Map(),
  };
  const dated = logs.filter((l) => l.time !== undefined).sort((a, b) => a.time!.localeCompare(b.time!));
  for (const log of dated) {
    const f = log.fields;
    const ms = parseTime(log.time)!;
    if (logSays(log, 'provisionable-pods')) {
      out.found.push({ ms, pods: podList(f.Pods ?? f.pods), log });
    } else if (logSays(log, 'created-nodeclaim')) {
      const claim = logRefs(f).nodeClaim;
      const pool = logRefs(f).nodePool;
      if (claim) {
        const c = { ms, claim, ...(pool ? { pool } : {}), log };
        out.created.push(c);
        out.createdByClaim.set(claim, c);
      }
    } else if (logSays(log, 'launched-nodeclaim')) {
      const claim = logRefs(f).nodeClaim;
      if (claim)
        out.launched.set(claim, {
          ...(str(f.zone) ? { zone: str(f.zone) } : {}),
          ...(str(f['instance-type']) ? { instanceType: str(f['instance-type']) } : {}),
          log,
        });
    } else if (logSays(log, 'registered-nodeclaim')) {
      const claim = logRefs(f).nodeClaim;
      const node = logRefs(f).node;
      if (claim && node) out.registered.set(node, claim);
    } else if (logSays(log, 'deleted-nodeclaim')) {
      const claim = logRefs(f).nodeClaim;
      const node = logRefs(f).node;
      if (claim) out.deleted.set(claim, log);
      // ≤ v0.31 logs "registered machine" only at debug: the delete record still ties the node to its machine.
      if (claim && node && !out.registered.has(node)) out.registered.set(node, claim);
    } else if (logSays(log, 'empty-disruption')) {
      out.emptied.push({ names: disruptedNames(log), log });
    }
  }
  return out;
}

/** Node and NodeClaim names a disruption record names. */
function disruptedNames(log: LogRecord): string[] {
  const names = new Set<string>();
  const list = log.fields['disrupted-nodes'];
  if (Array.isArray(list)) {
    for (const d of list) {
      if (!isRecord(d)) continue;
      const { node: n, nodeClaim: c } = logRefs(d);
      if (n) names.add(n);
      if (c) names.add(c);
    }
  }
  const text = `${log.message} ${str(log.fields.command) ?? ''}`;
  for (const m of text.matchAll(/\b(ip-[0-9a-z-]+(?:\.[0-9a-z-]+)*|i-[0-9a-f]{8,17})\b/g)) names.add(m[1]!);
  return [...names];
}
