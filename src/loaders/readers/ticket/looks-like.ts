/**
 * What a piece of text looks like, in the words a support engineer would use, for the skip list when no reader
 * takes it: "a kubectl get table of pods", "kubectl describe output of Node ip-10-0-1-5", "shell commands", "prose".
 */
import { resourceType } from '../../kubectl-resources.js';
import { kindPlural } from '../../../kube/kinds.js';
import { clip, isKubectlNoise } from '../../text-lines.js';
import { KUBECTL_VERSION_LINE } from '../sniffs.js';
import type { TextBlock } from './blocks.js';
import { EVENT_REASONS } from '../../../kube/messages/event-subjects.js';

export const HELM_LIST = 'helm list output';

/** kubectl apply/create/delete answer one line per object: `nodepool.karpenter.sh/general created`. */
const APPLY_RESULT =
  /^[a-z0-9.-]+(?:\/[^\s"]+| "[^"]+") (?:created|configured|unchanged|deleted|patched|serverside-applied)(?: \((?:server|client) dry run\))?$/;

export function looksLike(block: TextBlock): string {
  const lines = block.lines.filter((l) => l.trim() !== '');
  const first = lines[0]?.trim() ?? '';
  const cmd = block.command;
  const kind = cmd?.output.kind;
  if (/^Name:\s+\S/.test(first)) {
    const name = first.replace(/^Name:\s+/, '');
    const describedKind = kind ?? /^Kind:\s+(\S+)/m.exec(block.lines.join('\n'))?.[1];
    return `kubectl describe output of ${describedKind ? `${describedKind} ` : ''}${name}`;
  }
  if (/^(LAST SEEN|FIRSTSEEN|NAMESPACE\s+LAST SEEN)\s/.test(first)) return 'a kubectl get table of events';
  const server = kubectlVersion(lines);
  if (server !== undefined) return `kubectl version output${server ? ` (Kubernetes server ${server})` : ''}: no rule reads the Kubernetes version`;
  if (cmd && cmd.verb !== 'get' && cmd.verb !== 'describe' && /^[A-Z]/.test(first)) return `kubectl ${cmd.verb} output`;
  if (/\bREVISION\s+UPDATED\s+STATUS\s+CHART\b/.test(first) || helmReleaseFields(lines)) return HELM_LIST;
  if (/^(NAMESPACE\s+)?NAME\s{2,}/.test(first)) {
    const what = kind ? plural(kind) : tableKindByColumns(first);
    return `a kubectl get table${what ? ` of ${what}` : ''}`;
  }
  if (/^No resources found/.test(first) && cmd?.selector)
    return `kubectl found nothing matching the selector of \`${cmd.text}\` (others of that kind may exist)`;
  if (isKubectlNoise(first)) return `kubectl's message${cmd ? ` to \`${cmd.text}\`` : ''}: ${clip(first)}`;
  if (lines.every((l) => /^\s*(Normal|Warning)\s{2,}[A-Z]\w+\s{2,}\S+/.test(l))) {
    // Rows cut to Type, Reason, Message are read only under a reason the catalog knows: say which were not.
    const reasons = [...new Set(lines.map((l) => l.trim().split(/\s+/)[1]!))];
    if (reasons.every((r) => !EVENT_REASONS.has(r)))
      return `lines opening with Normal or Warning whose second word (${clip(reasons.join(', '))}) is no event reason karpdoctor knows`;
    return 'rows of a kubectl describe Events table without the object they belong to';
  }
  // A bit of describe output (`Taints:   x:NoSchedule` alone): too little to tell whose, or what kind.
  if (block.kind === 'other' && /^[A-Z][\w -]*:(\s{2,}\S|\s*$)/.test(first))
    return `a part of kubectl describe output (${clip(first.replace(/:.*$/, ':'))}) too short to tell what it describes`;
  if (block.kind === 'yaml') return 'YAML that is not a Kubernetes object';
  if (block.kind === 'log') return 'log lines that are not Karpenter controller records';
  if (lines.every((l) => /^\s*(\$|#|>|%|❯|PS )|^\s*(kubectl|helm|aws|eksctl|k) /.test(l))) return 'shell commands';
  if (lines.every((l) => APPLY_RESULT.test(l.trim())))
    return `kubectl's answer to apply or delete (${clip(first)}), saying what was done, not the objects' state`;
  return block.lang ? `a ${block.lang} code block` : 'text that is neither objects nor logs';
}

/** `helm list -o json` or `-o yaml`: releases as objects, each with the table's columns as keys. */
function helmReleaseFields(lines: string[]): boolean {
  const text = lines.join('\n');
  // A Kubernetes object with such keys (a Flux HelmRelease's status) is read as the object it is.
  if (/^\s*"?kind"?\s*:/m.test(text)) return false;
  return ['chart', 'app_version', 'revision', 'status'].every((k) => new RegExp(String.raw`(?:^|[\s{,-])"?${k}"?\s*:`, 'm').test(text));
}

/** `Client Version: v1.32.2` / `Server Version: v1.32.1-eks-…` (or the older `version.Info{… GitVersion:"v1.27.4" …}`). */
function kubectlVersion(lines: string[]): string | undefined {
  if (!lines.length || !lines.every((l) => (KUBECTL_VERSION_LINE.test(l) && /:\s*\S/.test(l)) || /^\s*WARNING: version difference/.test(l))) return undefined;
  const server = lines.find((l) => /^\s*Server Version:/.test(l)) ?? '';
  return /GitVersion:"([^"]+)"/.exec(server)?.[1] ?? /Server Version:\s*(v?\d\S*)/.exec(server)?.[1] ?? '';
}

/** Columns that only one kind's table has. */
const COLUMNS: Array<[RegExp, string]> = [
  [/\bREADY\s+STATUS\s+RESTARTS\b/, 'pods'],
  [/\bSTATUS\s+ROLES\s+AGE\s+VERSION\b/, 'nodes'],
  [/\bTYPE\s+CAPACITY\s+ZONE\s+NODE\s+READY\b/, 'nodeclaims'],
  [/\bNODECLASS\s+NODES\s+READY\b|\bNODECLASS\s+WEIGHT\b/, 'nodepools'],
  [/\bMIN AVAILABLE\s+MAX UNAVAILABLE\b/, 'poddisruptionbudgets'],
  [/\bREADY\s+UP-TO-DATE\s+AVAILABLE\b/, 'deployments'],
];

function tableKindByColumns(header: string): string | undefined {
  return COLUMNS.find(([re]) => re.test(header))?.[1];
}

function plural(kind: string): string {
  const t = resourceType(kind);
  return kindPlural(t?.kind ?? kind).toLowerCase();
}
