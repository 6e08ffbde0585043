/**
 * Per NodePool, every node as two bars (requested vs allocatable CPU and memory) coloured by its first blocker, so idle
 * nodes (short bars) and stuck ones (coloured) stand out. Inline SVG; every name goes through esc/attrs.
 */
import { KIND } from '../../kube/kinds.js';
import type { KubeObject } from '../../kube/types.js';
import { formatBytes, formatCpu } from '../../kube/units.js';
import { nameOf } from '../../kube/fields.js';
import { nodeUsage, type Usage } from '../../snapshot/capacity.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { BLOCKER_LABEL, NODE_BLOCKERS, type NodeVerdict } from './blockers.js';
import { attrs, esc } from './escape.js';

const WIDTH = 480;
const BAR_X = 64;
const BAR_W = 340;
const ROW = 52;

export function nodesSection(snapshot: Snapshot, verdicts: Map<string, NodeVerdict>): string {
  // Pools in the snapshot, and pools that only their nodes' labels name.
  const pools = new Set(snapshot.nodePools().map((p) => p.name));
  for (const node of snapshot.karpenterNodes()) {
    const pool = snapshot.nodePoolNameOf(node);
    if (pool) pools.add(pool);
  }
  const byPool = new Map([...pools].sort().map((pool) => [pool, [...snapshot.nodesOfPool(pool)].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))]));
  const drawn = [...byPool.values()].reduce((n, names) => n + names.length, 0);
  const nodeCount = snapshot.all(KIND.Node).length;
  const outside = nodeCount - drawn;
  const figures = [...byPool].map(([pool, nodes]) => poolFigure(snapshot, pool, nodes, verdicts));
  return [
    '<section id="nodes" aria-labelledby="nodes-title">',
    '<h2 id="nodes-title">Nodes by NodePool: requested vs allocatable</h2>',
    '<p>Each node is two bars: CPU, then memory requested by its active pods, against what the node can allocate. The colour is its first blocker.</p>',
    legend(),
    nodeCount ? figures.join('\n') : '<p>The input holds no Nodes (desired state only, or they were not collected).</p>',
    outside > 0 ? `<p>${outside} node(s) outside Karpenter's NodePools are not drawn.</p>` : '',
    '</section>',
  ].join('\n');
}

function legend(): string {
  const items = NODE_BLOCKERS.map(
    (b) =>
      `<li><svg class="swatch" width="14" height="14" aria-hidden="true"><g${attrs({ 'data-blocker': b })}><rect class="bar" width="14" height="14"/></g></svg> <b>${esc(b)}</b>: ${esc(BLOCKER_LABEL[b])}</li>`,
  );
  return `<ul class="legend" aria-label="Blocker colours">\n${items.join('\n')}\n</ul>`;
}

function poolFigure(snapshot: Snapshot, pool: string, nodes: KubeObject[], verdicts: Map<string, NodeVerdict>): string {
  const caption = `NodePool ${pool}: ${nodes.length} node(s)`;
  const height = nodes.length ? nodes.length * ROW : 24;
  const rows = nodes.map((node, i) => nodeRow(snapshot, node, i * ROW, verdicts.get(nameOf(node))));
  if (!nodes.length) rows.push(`<text x="0" y="16">no nodes</text>`);
  return [
    `<figure${attrs({ class: 'nodepool', 'data-nodepool': pool })}>`,
    `<figcaption>${esc(caption)}</figcaption>`,
    // No role="img": that would hide each node's <title> from assistive technology.
    `<svg${attrs({ viewBox: `0 0 ${WIDTH} ${height}`, width: '100%' })}>`,
    `<title>${esc(`${caption}, requested vs allocatable CPU and memory`)}</title>`,
    ...rows,
    '</svg>',
    '</figure>',
  ].join('\n');
}

function nodeRow(snapshot: Snapshot, node: KubeObject, y: number, verdict: NodeVerdict | undefined): string {
  const name = nameOf(node);
  const u = nodeUsage(snapshot, node);
  const blocker = verdict?.blocker ?? 'none';
  const cpu = bar('cpu', 'CPU', u.cpu, y + 18, formatCpu, roundCpu);
  const mem = bar('memory', 'memory', u.memory, y + 34, formatBytes, Math.round);
  const title =
    `${name}: CPU ${cpu.text}, memory ${mem.text}; ${u.workloadPods} workload pod(s) besides DaemonSets; ` +
    (verdict ? `first blocker: ${blocker}; causes: ${verdict.causes.join(', ')}` : 'no blocker found');
  return [
    `<g${attrs({ class: 'node', 'data-node': name, 'data-blocker': blocker, tabindex: 0 })}>`,
    `<title>${esc(title)}</title>`,
    `<text class="name"${attrs({ x: 0, y: y + 12 })}>${esc(shortened(name))}</text>`,
    cpu.svg,
    mem.svg,
    '</g>',
  ].join('\n');
}

function bar(
  cls: 'cpu' | 'memory',
  label: string,
  r: Usage['cpu'],
  y: number,
  format: (n: number) => string,
  round: (n: number) => number,
): { svg: string; text: string } {
  const share = r.allocatable > 0 ? r.requested / r.allocatable : undefined;
  const pct = share === undefined ? 'n/a' : `${Math.round(share * 100)}%`;
  const w = share === undefined ? 0 : Math.min(1, share) * BAR_W;
  const svg = [
    `<text class="label"${attrs({ x: 0, y: y + 9 })}>${esc(label)}</text>`,
    `<rect class="track"${attrs({ x: BAR_X, y, width: BAR_W, height: 10 })}/>`,
    `<rect${attrs({ class: `bar ${cls}`, 'data-requested': round(r.requested), 'data-allocatable': round(r.allocatable), x: BAR_X, y, width: w.toFixed(1), height: 10 })}/>`,
    `<text class="pct"${attrs({ x: BAR_X + BAR_W + 6, y: y + 9 })}>${esc(pct)}</text>`,
  ].join('');
  return { svg, text: `${format(r.requested)} of ${format(r.allocatable)} requested (${pct})` };
}

/** What fits the bar's width (about 70 characters at this size); the title holds the whole name. */
function shortened(name: string): string {
  return name.length > 68 ? `${name.slice(0, 67)}…` : name;
}

/** CPU in cores to the millicore, without float noise (0.1 + 0.2). */
function roundCpu(n: number): number {
  return Math.round(n * 1000) / 1000;
}
