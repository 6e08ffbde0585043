/**
 * eks-node-viewer's screen as people paste it into tickets: cluster totals, then one line per node with its first
 * resource's bar, pod count, instance type and price, capacity type, Cordoned/Deleting, and Ready (or, while the node
 * is not ready, how long ago it was created), each further resource on an indented line of its own.
 *
 *   ip-10-8-3-41.eu-west-1.compute.internal  cpu  ████░░░░  44% (12 pods) t3.medium/$0.0456  On-Demand - Ready
 *                                            memory ██░░░░░░  17%
 *
 * Each node becomes a *partial* Node: name, instance type label, cordon, Ready (or its age). The bars are requests
 * against allocatable as percentages: no amounts, so they are not read.
 */
import type { KubeObject, LoadedObject } from '../../kube/types.js';
import { pointer } from '../../kube/fields.js';
import { parseAge } from './columns.js';
import { addRead, onlyOutput, type ReadResult } from './kubectl-output.js';
import { readAll, type Reader } from './reader.js';

const FROM = "eks-node-viewer's screen";
const BAR = '[█░▓▒■□━─ ]+';
const NODE_LINE = new RegExp(
  String.raw`^\s*(\S+)\s+[a-z][\w./-]*\s+${BAR}\s*\d+%\s+\((\d+) pods?\)\s+([\w.-]+)(?:/\$[\d.]+)?\s+(On-Demand|Spot|Fargate|-)\s+(Cordoned/Deleting|Deleting|Cordoned|-)\s+(Ready|\S+)(?:\s+(.*?))?\s*$`,
);
/** A further resource of the node above: `memory ██░░░  17%`. */
const RESOURCE_LINE = new RegExp(String.raw`^\s+[a-z][\w./-]*\s+${BAR}\s*\d+%\s*$`);
/** The totals: `6 nodes (4210m/15820m)  26.6% cpu ███ $0.412/hour | $300.760/month`, its other resources, the pods line. */
const SUMMARY_LINE = new RegExp(
  String.raw`^\s*(?:\d+ nodes?\s+\(\s*\S+\)|\S+/\S+)\s+[\d.]+%\s+[a-z][\w./-]*\s+${BAR}.*$|^\s*\d+ pods? \(\d+ pending \d+ running \d+ bound\)\s*$`,
);
/** The pager and key help under the list. */
const FOOTER_LINE = /^\s*(?:[•·]\s*)+$|^\s*←\/→ page/;

/** A line of eks-node-viewer's screen (for the ticket reader, which cuts a text into blocks). */
export function isNodeViewerLine(line: string): boolean {
  return NODE_LINE.test(line) || SUMMARY_LINE.test(line) || RESOURCE_LINE.test(line);
}

export function sniffNodeViewer(text: string): boolean {
  const lines = text.split('\n', 40).filter((l) => l.trim() !== '');
  return lines.length > 0 && lines.some((l) => NODE_LINE.test(l) || SUMMARY_LINE.test(l)) && lines.every((l) => isNodeViewerLine(l) || FOOTER_LINE.test(l));
}

export function readNodeViewer(text: string, source: string): ReadResult {
  const out: ReadResult = { objects: [], skipped: [] };
  const lines = text.split('\n');
  let totals: number | undefined;
  lines.forEach((line, i) => {
    const m = NODE_LINE.exec(line);
    if (m) out.objects.push(nodeOf(m, source, i + 1));
    else if (totals === undefined && SUMMARY_LINE.test(line)) totals = i + 1;
  });
  if (totals !== undefined)
    out.skipped.push({ source, line: totals, reason: "eks-node-viewer's cluster totals (percentages of all nodes, no objects), not read" });
  return out;
}

function nodeOf(m: RegExpExecArray, source: string, line: number): LoadedObject {
  const [, name, , instanceType, , cordon, ready] = m;
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: name!, labels: { 'node.kubernetes.io/instance-type': instanceType! } } };
  const known = ['/metadata/name', pointer('metadata', 'labels', 'node.kubernetes.io/instance-type'), '/spec/unschedulable'];
  // On-Demand/Spot comes from Karpenter's capacity-type label or from a managed node group's: it does not say which,
  // so neither label is read (nor, from it, whether Karpenter made the node).
  if (cordon!.startsWith('Cordoned')) node.spec = { unschedulable: true };
  const ages: Record<string, number> = {};
  const notTrue: string[] = [];
  if (ready === 'Ready') {
    node.status = { conditions: [{ type: 'Ready', status: 'True' }] };
    known.push('/status/conditions/0/type', '/status/conditions/0/status');
  } else {
    // Not ready: the screen shows the node's age instead, and not whether Ready is False or Unknown.
    notTrue.push('Ready');
    const age = parseAge(ready!);
    if (age !== undefined) {
      ages['/metadata/creationTimestamp'] = age;
      known.push('/metadata/creationTimestamp');
    }
  }
  return {
    object: node,
    provenance: { source, line, partial: { from: FROM, known, ...(notTrue.length ? { notTrue } : {}) }, ...(Object.keys(ages).length ? { ages } : {}) },
  };
}

export const eksNodeViewer: Reader = {
  pasted: true,
  id: 'eks-node-viewer',
  needs: 'content',
  sniff: (s) => (onlyOutput(s) && sniffNodeViewer(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    addRead(readNodeViewer(await readAll(chunks), file.displayPath), sink);
    return 'loaded';
  },
};
