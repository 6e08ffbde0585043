/**
 * The Karpenter version when nothing that runs shows it: an eksctl ClusterConfig's `karpenter.version` (what eksctl
 * installs), else what a ticket states (its issue template's "Chart Version", the helm command it ran). A shown
 * version (image tag, Helm label or values) and `--karpenter-version` win; a statement that disagrees with them
 * is noted, never silently dropped.
 */
import type { KubeObject, Provenance } from '../kube/types.js';
import { dig, displayName, str } from '../kube/fields.js';
import { formatVersion, parseVersion } from '../kube/version.js';
import type { StatedVersion } from '../loaders/types.js';
import type { ControllerInfo } from './controller-info.js';

const STRENGTH: ReadonlyArray<StatedVersion['how']> = ['helm list', 'helm command', 'terraform', 'template', 'variable'];

interface Statement {
  version: string;
  /** How the report cites it: `eksctl ClusterConfig harbor-test karpenter.version (c.yaml:14)`. */
  evidence: string;
  source: 'eksctl' | 'ticket';
  at?: { object: KubeObject; path: string };
  fileAt?: string;
}

export function useStatedVersion(
  info: ControllerInfo,
  stated: readonly StatedVersion[],
  eksctlConfigs: readonly KubeObject[],
  provenanceOf: (o: KubeObject) => Provenance | undefined,
): void {
  const statements: Statement[] = [
    ...eksctlConfigs.flatMap((c): Statement[] => {
      const version = str(dig(c, 'karpenter', 'version'))?.replace(/^v/, '');
      if (!version || !parseVersion(version)) return [];
      const p = provenanceOf(c);
      const where = p ? ` (${p.source}${p.line ? `:${p.line}` : ''})` : '';
      return [
        {
          version,
          evidence: `eksctl ClusterConfig ${displayName(c)} karpenter.version${where}`,
          source: 'eksctl',
          at: { object: c, path: '/karpenter/version' },
        },
      ];
    }),
    ...[...stated]
      .sort((a, b) => STRENGTH.indexOf(a.how) - STRENGTH.indexOf(b.how))
      .map((s): Statement => ({
        version: s.version,
        evidence: `stated in the ticket: "${s.text}" (${s.source}:${s.line})`,
        source: 'ticket',
        fileAt: `${s.source}:${s.line}`,
      })),
  ].filter((s) => parseVersion(s.version) && /^\d+\.\d+\.\d+/.test(s.version));
  const [first] = statements;
  if (!first) return;
  const notes: string[] = [];
  if (!info.version) {
    info.version = parseVersion(first.version);
    info.versionSource = first.source;
    info.versionEvidence = first.evidence;
    if (first.at) info.versionAt = { ...first.at, where: 'eksctl karpenter.version' };
    if (first.fileAt) info.versionFileAt = first.fileAt;
  }
  const used = formatVersion(info.version!);
  const others = statements.filter((s) => formatVersion(parseVersion(s.version)!) !== used);
  for (const s of others.slice(0, 3))
    notes.push(`the input also states Karpenter ${s.version} (${s.evidence.replace(/^stated in the ticket: /, '')}); ${used} is used`);
  if (others.length > 3) notes.push(`${others.length - 3} more statement(s) of another Karpenter version not listed`);
  if (notes.length) info.note = [info.note, ...notes].filter(Boolean).join('; ');
}
