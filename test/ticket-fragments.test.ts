/**
 * Fragments as people paste them into tickets (fixtures/tickets/fragments/README.md): the version the issue template
 * states, `kubectl version` output, Terraform fences, helm install commands, eksctl cluster files, `| yq` excerpts,
 * YAML with comments and elisions inside quoted list items. Each case asserts what a person reads in the text: the
 * objects (and which are partial), the skips, the Karpenter version with where it came from, and the exact findings.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../src/loaders/readers/ticket/command.js';
import { helmInstallCommand } from '../src/loaders/readers/ticket/helm-command.js';
import { statedVersions } from '../src/loaders/readers/ticket/versions.js';
import { FIXTURES, scan } from './support/scan.js';

const NOW = '2026-02-01T00:00:00Z';
const fragment = (name: string) => join(FIXTURES, 'tickets', 'fragments', name);

interface Case {
  file: string;
  /** `Kind name (partial) @line` of every object. */
  objects: string[];
  /** `line reason` of every skip. */
  skipped: string[];
  /** `X.Y.Z from SOURCE: evidence`, or undefined when the version stays unknown. */
  version?: string;
  note?: RegExp;
  /** `rule Kind name`. */
  findings: string[];
}

const CASES: Case[] = [
  {
    file: 'template-versions.md',
    objects: ['NodePool ledger @8'],
    // The `kubectl version` lines without a fence are part of the prose around them.
    skipped: ['1 prose (7 paragraphs), not objects or logs'],
    version: '1.0.8 from ticket: stated in the ticket: "Chart Version: 1.0.8" (template-versions.md:33)',
    findings: [],
  },
  {
    file: 'template-placeholder.md',
    objects: ['Provisioner nightly-batch @13'],
    skipped: ['1 prose (6 paragraphs), not objects or logs'],
    // `v0.0.0` is the old template's own placeholder, left as it was: no version.
    findings: ['deprecated-karpenter-api Provisioner nightly-batch', 'nodepool-without-limits Provisioner nightly-batch'],
  },
  {
    file: 'old-template-bold.md',
    objects: ['Provisioner batch @18'],
    skipped: ['1 prose (8 paragraphs), not objects or logs'],
    version: '0.14.0 from ticket: stated in the ticket: "**Karpenter**: v0.14.0" (old-template-bold.md:3)',
    findings: ['deprecated-karpenter-api Provisioner batch'],
  },
  {
    file: 'kubectl-version-fenced.md',
    objects: ['NodePool default (partial) @15'],
    skipped: [
      '7 kubectl version output (Kubernetes server v1.28.6-eks-508b6b3): no rule reads the Kubernetes version, not read',
      '1 prose (3 paragraphs), not objects or logs',
    ],
    version: '0.33.4 from ticket: stated in the ticket: "Chart Version: `0.33.4`" (kubectl-version-fenced.md:4)',
    findings: ['deprecated-karpenter-api NodePool default'],
  },
  {
    file: 'terraform-fences.md',
    objects: ['HelmValues helm_release.karpenter @13', 'Provisioner general @38'],
    skipped: ['1 prose (5 paragraphs), not objects or logs'],
    // The helm_release shows the chart; the template's statement agrees with it.
    version: '0.16.3 from chart: chart version: version 0.16.3 in terraform-fences.md:20',
    findings: ['deprecated-karpenter-api Provisioner general'],
  },
  {
    file: 'terraform-yamlencode.md',
    objects: ['EC2NodeClass standard @4', 'NodePool standard @30'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    // `cpu = var.max_cpu` is a limit Terraform knows: nodepool-without-limits does not judge it.
    findings: [],
  },
  {
    file: 'terraform-heredoc.md',
    objects: ['NodePool batch @6'],
    // "Chart 1.2.3." in a sentence is not a labelled statement of the version.
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    findings: ['disruption-budget-blocks-all NodePool batch'],
  },
  {
    file: 'terraform-unfenced.md',
    // Terraform pasted without a fence runs to its closing brace; the heredoc's YAML is the Provisioner.
    objects: ['Provisioner default @7'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['deprecated-karpenter-api Provisioner default'],
  },
  {
    file: 'helm-install-set.md',
    objects: ['HelmValues helm upgrade karpenter @4'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    version: '1.0.6 from chart: chart version: version 1.0.6 in helm-install-set.md:4',
    findings: [],
  },
  {
    file: 'eksctl-cluster-config.md',
    objects: ['ClusterConfig harbor-test @4', 'NodePool spot @30'],
    skipped: ['1 prose (2 paragraphs), not objects or logs'],
    version: '0.35.2 from eksctl: eksctl ClusterConfig harbor-test karpenter.version (eksctl-cluster-config.md:4)',
    findings: ['deprecated-karpenter-api NodePool spot'],
  },
  {
    file: 'helm-list-and-export.md',
    objects: ['NodePool general @13'],
    skipped: [
      '4 shell commands, read only for the Karpenter version it states (1.1.1)',
      '6 helm list output, read only for the Karpenter version it states (1.0.9)',
      '1 prose (2 paragraphs), not objects or logs',
    ],
    // What `helm list` shows deployed outweighs what the exported variable meant to install; the other is noted.
    version: '1.0.9 from ticket: stated in the ticket: "helm list: deployed karpenter-1.0.9 1.0.9" (helm-list-and-export.md:7)',
    note: /the input also states Karpenter 1\.1\.1 \("export KARPENTER_VERSION="1\.1\.1"" \(.*helm-list-and-export\.md:4\)\); 1\.0\.9 is used/,
    findings: [],
  },
  {
    file: 'values-without-command.md',
    // Karpenter's own keys (settings.clusterName, settings.interruptionQueue) make a bare values block the chart's
    // values; the ticket's symptom is the finding's cause.
    objects: ['NodePool workers @22', 'HelmValues values at line 6 @6'],
    skipped: ['1 prose (3 paragraphs), not objects or logs'],
    findings: ['spot-without-interruption-queue HelmValues values at line 6'],
  },
  {
    file: 'helm-values-elided.md',
    // `...` under `settings:` may have held the interruption queue: the rule is not evaluated, never a false warning.
    objects: ['NodePool batch @17', 'HelmValues helm get values karpenter @6'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: [],
  },
  {
    file: 'blueprints-addons-module.md',
    objects: [],
    skipped: [
      '4 Terraform without Kubernetes resources or a karpenter helm_release, read only for the Karpenter version it states (0.37.0)',
      '1 prose (2 paragraphs), not objects or logs',
    ],
    version: '0.37.0 from ticket: stated in the ticket: "chart_version = "0.37.0"" (blueprints-addons-module.md:15)',
    findings: [],
  },
  {
    file: 'markdown-list-and-quote.md',
    // A quoted reply, a numbered list item's indented fence, a comment above the YAML and `...` inside it.
    objects: ['NodePool gpu (partial) @9'],
    skipped: ['1 prose (5 paragraphs), not objects or logs'],
    findings: [],
  },
  {
    file: 'json-managed-fields-and-list.md',
    // `-o json` with managedFields, and a `kind: List` of two kinds from `get nodepool,ec2nodeclass`.
    objects: ['NodeClaim general-x8kpd @5', 'NodePool general @62', 'EC2NodeClass general @75'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['nodeclaim-not-registered NodePool general'],
  },
  {
    file: 'diff-fence.md',
    // A diff fence is read as the object after the change: the change is the cause the ticket states.
    objects: ['NodePool storefront @4'],
    skipped: ['1 prose (1 paragraph), not objects or logs'],
    findings: ['consolidation-disabled-for-underused-nodes NodePool storefront'],
  },
  {
    file: 'warning-and-json-elision.md',
    // kubectl's deprecation warning above the YAML is its own line; the YAML below it keeps its command.
    objects: ['EC2NodeClass legacy @6', 'NodeClaim legacy-q8v2n (partial) @25'],
    skipped: [
      "5 kubectl's message to `kubectl get ec2nodeclass legacy -o yaml`: Warning: karpenter.k8s.aws/v1beta1 EC2NodeClass is deprecated, migrate to karpe…, not read",
      '1 prose (2 paragraphs), not objects or logs',
    ],
    // The conditions are shown whole (the cuts are in metadata and spec): launched, never registered — a warning
    // until the whole NodeClaim confirms it, so after the deprecation (sorted by rule id).
    findings: ['deprecated-karpenter-api EC2NodeClass legacy', 'nodeclaim-not-registered NodeClaim legacy-q8v2n'],
  },
];

describe('fragments pasted in tickets: read as a person reads them', () => {
  it.each(CASES)('$file', async (c) => {
    const r = await scan([fragment(c.file)], { now: NOW });
    const own = fragment(c.file);
    expect(r.load.objects.map((o) => `${o.object.kind} ${o.object.metadata.name}${o.provenance.partial ? ' (partial)' : ''} @${o.provenance.line}`)).toEqual(
      c.objects,
    );
    expect(r.load.skipped.map((s) => `${s.source === own ? '' : `${s.source}:`}${s.line ?? '-'} ${s.reason}`)).toEqual(c.skipped);
    const ctl = r.snapshot.controller;
    const version = ctl.version
      ? `${ctl.version.join('.')} from ${ctl.versionSource}: ${ctl.versionEvidence?.split(`${FIXTURES}tickets/fragments/`).join('')}`
      : undefined;
    expect(version?.replace(/fixtures\/tickets\/fragments\//g, '')).toEqual(c.version);
    if (c.note) expect(ctl.note).toMatch(c.note);
    else expect(ctl.note).toBeUndefined();
    expect(r.findings.map((f) => `${f.ruleId} ${f.object.kind} ${f.object.name}`)).toEqual(c.findings);
  });

  it('a version from the ticket is reported and cited at its line', async () => {
    const r = await scan([fragment('template-versions.md')], { now: NOW });
    expect(r.report.snapshot.karpenterVersion).toBe('1.0.8');
    expect(r.snapshot.controller.versionEvidence).toMatch(/^stated in the ticket: "Chart Version: 1\.0\.8" \(.*template-versions\.md:33\)$/);
    expect(r.snapshot.controller.versionFileAt).toBe(`${fragment('template-versions.md')}:33`);
  });

  it('values pasted in a ticket are cited at their own lines', async () => {
    const r = await scan([fragment('values-without-command.md')], { now: NOW });
    const evidence = r.findings[0]!.evidence.map((e) => `${e.path ?? ''} @${e.source.slice(e.source.lastIndexOf(':') + 1)}`);
    expect(evidence).toEqual(['/spec/template/spec/requirements/0 @34', '/values/settings/interruptionQueue @8', '/values/settings/featureGates @9']);
  });

  it('lines left out with `...` make what was under them unknown, and only that', async () => {
    const r = await scan([fragment('markdown-list-and-quote.md'), fragment('warning-and-json-elision.md')], { now: NOW });
    const partial = (name: string) => r.load.objects.find((o) => o.object.metadata.name === name)!;
    const pool = partial('gpu');
    expect(pool.provenance.partial).toEqual({
      from: 'YAML with lines left out (`...`)',
      known: ['/apiVersion', '/kind', '/metadata', '/spec/template/spec/nodeClassRef', '/spec/template/spec/taints', '/spec/limits'],
    });
    // The marker that stood for the left-out lines is gone from what rules read.
    expect(JSON.stringify(pool.object)).not.toMatch(/karpdoctor/);
    expect(r.snapshot.isKnown(pool.object, '/spec/limits/cpu')).toBe(true);
    expect(r.snapshot.isKnown(pool.object, '/spec/template/spec/requirements')).toBe(false);
    const claim = partial('legacy-q8v2n');
    expect(claim.object.metadata).toEqual({ name: 'legacy-q8v2n' });
    expect(claim.provenance.partial?.known).toEqual(['/apiVersion', '/kind', '/metadata/name', '/spec/nodeClassRef', '/status']);
    expect(r.snapshot.isKnown(claim.object, '/metadata/creationTimestamp')).toBe(false);
  });

  it('settings cut from pasted Helm values are unknown: the rule that reads them says so and where', async () => {
    const r = await scan([fragment('helm-values-elided.md')], { now: NOW });
    expect(r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason}`)).toEqual([
      `spot-without-interruption-queue: not evaluated for HelmValues helm get values karpenter: values.settings is not shown: lines were left out there (\`...\`) (at ${fragment('helm-values-elided.md')}:8)`,
    ]);
    expect(JSON.stringify(r.load.objects.map((o) => o.object))).not.toMatch(/karpdoctor_left_out/);
  });

  it('--karpenter-version wins over what the ticket states, which is then noted', async () => {
    const r = await scan([fragment('template-versions.md')], { now: NOW, karpenterVersion: '1.1.0' });
    expect(r.snapshot.controller.version).toEqual([1, 1, 0]);
    expect(r.snapshot.controller.versionSource).toBe('flag');
    expect(r.snapshot.controller.note).toMatch(/the input also states Karpenter 1\.0\.8 \("Chart Version: 1\.0\.8" \(.*:33\)\); 1\.1\.0 is used/);
  });

  it('the helm command sets the controller settings it names, each at its line', async () => {
    const r = await scan([fragment('helm-install-set.md')], { now: NOW });
    const ctl = r.snapshot.controller;
    expect(ctl.interruptionQueue).toBe('orchard-dev');
    expect(ctl.helm?.release.values).toEqual({
      settings: { clusterName: 'orchard-dev', interruptionQueue: 'orchard-dev' },
      controller: { resources: { requests: { cpu: 1, memory: '1Gi' } } },
      replicas: 1,
    });
    expect(r.load.objects[0]!.provenance.fields?.['/values/settings/interruptionQueue']).toEqual([6, 9]);
  });

  it('the yq excerpt is that field of the named object, every other field unknown', async () => {
    const r = await scan([fragment('kubectl-version-fenced.md')], { now: NOW });
    const pool = r.load.objects[0]!;
    expect(pool.object).toEqual({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: 'default' },
      spec: { disruption: { consolidationPolicy: 'WhenUnderutilized', expireAfter: '720h', budgets: [{ nodes: '0' }] } },
    });
    expect(pool.provenance.partial).toEqual({ from: "an excerpt piped through yq '.spec.disruption'", known: ['/metadata/name', '/spec/disruption'] });
    expect(r.run.notEvaluatedFor.map((n) => `${n.ruleId}: ${n.reason}`)).toContain(
      `nodepool-without-limits: NodePool default (${fragment('kubectl-version-fenced.md')}): an excerpt piped through yq '.spec.disruption' does not show spec.limits: add \`kubectl get nodepool default -o yaml\``,
    );
  });
});

describe('stated versions', () => {
  const versions = (text: string) => statedVersions(text.split('\n'), 't.md').map((s) => `${s.line} ${s.how} ${s.version}${s.series ? ' (series)' : ''}`);

  it('reads each template generation and the commands people paste', () => {
    expect(
      versions(
        [
          '- Chart Version: 1.3.3',
          '* Chart Version: `v1.2.1`',
          '__Karpenter Version:__ v0.19.0',
          '**Karpenter**: v0.14.0',
          'Karpenter chart version: karpenter-1.0.6',
          '> - Chart Version: 1.1.0',
          '**Versions**: Chart Version: 1.2.3, Kubernetes Version (`kubectl version`): 1.31',
          '| Karpenter chart | 1.6.2 |',
          '- Karpenter version: v1.0.1 (upgraded from v0.37.1)',
          '$ export KARPENTER_VERSION="1.4.0"',
          'KARPENTER_VERSION=v0.37.2',
          'karpenter   kube-system   3   2025-01-02 09:10:11 +0000 UTC   deployed   karpenter-1.0.9   1.0.9',
          'helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --namespace kube-system \\',
          '  --version 1.5.0 --wait',
        ].join('\n'),
      ),
    ).toEqual([
      '1 template 1.3.3',
      '2 template 1.2.1',
      '3 template 0.19.0',
      '4 template 0.14.0',
      '5 template 1.0.6',
      '6 template 1.1.0',
      '7 template 1.2.3',
      '8 template 1.6.2',
      '9 template 1.0.1',
      '10 variable 1.4.0',
      '11 variable 0.37.2',
      '12 helm list 1.0.9',
      '13 helm command 1.5.0',
    ]);
  });

  it('a field stating an upgrade gives where it went, whatever the arrow', () => {
    expect(
      versions(
        [
          '- Chart Version: `v0.36.2` → `v0.37.1`',
          '__Karpenter Version:__ 0.37.7 -> 1.0.9',
          'Chart Version: 1.0.4 to karpenter-1.1.0',
          'Chart Version: 1.0.4 (tried 1.1.0 too)',
        ].join('\n'),
      ),
    ).toEqual(['1 template 0.37.1', '2 template 1.0.9', '3 template 1.1.0', '4 template 1.0.4']);
  });

  it('a sentence naming one release as what runs, and no sentence that names two or an upgrade', () => {
    expect(
      versions(
        [
          'We are running Karpenter version v1.1.2 on our staging cluster.',
          'Our karpenter helm chart version is 0.36.1, EKS 1.29.',
          'After upgrading from Karpenter version 0.37.3 the nodes stopped joining.',
          'Karpenter version 1.0.8 was working; we rolled back to it',
          'The Karpenter chart version 1.2.0',
        ].join('\n'),
      ),
    ).toEqual(['1 sentence 1.1.2', '5 sentence 1.2.0']);
  });

  it('a field whose label is separated by a spaced dash instead of a colon', () => {
    expect(
      versions(['* Chart Version – `1.1.3`', '- Karpenter — v0.36.2', 'Karpenter - karpenter-1.0.8', 'Karpenter -v0.36.2 flag', 'karpenter-1.2.3'].join('\n')),
    ).toEqual(['1 template 1.1.3', '2 template 0.36.2', '3 template 1.0.8']);
  });

  it('reads a minor series as a series, never as its patch 0: template fields, a sentence naming one release', () => {
    expect(
      versions(
        [
          '- Chart Version: 1.0.x',
          '* Karpenter: `v0.35`',
          'We run Karpenter v1.1.* on two clusters',
          '**Karpenter Version**: using 0.34 (latest patch)',
          'Karpenter v0.35 to v0.36 broke it',
        ].join('\n'),
      ),
    ).toEqual(['1 template 1.0 (series)', '2 template 0.35 (series)', '3 sentence 1.1 (series)', '4 template 0.34 (series)']);
  });

  it('reads nothing from sentences, empty fields, placeholders, ranges or the CRD chart', () => {
    expect(
      versions(
        [
          'We upgraded Karpenter from 0.37.2 to 1.0.6 last week.',
          '- Chart Version:',
          '- Kubernetes Version (`kubectl version`): 1.30',
          '__Karpenter Version:__ v0.0.0',
          'Karpenter version 1.2.0 works, 1.3.0 does not',
          'image: public.ecr.aws/karpenter/controller:1.0.6',
          'karpenter:',
          '  version: 0.35.2',
          'helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version 1.0.6',
          'helm upgrade --install karpenter oci://public.ecr.aws/karpenter/karpenter --version "${KARPENTER_VERSION}"',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('helm install commands', () => {
  const read = (text: string) => helmInstallCommand(text.split('\n'), 10, 't.md');

  it('values from -f FILE are not shown: all values are unknown, so no rule judges them', () => {
    const r = read('helm install karpenter karpenter/karpenter -n karpenter -f values-prod.yaml --set settings.clusterName=prod');
    expect(r?.provenance.unknown).toEqual([{ pointer: '/values', expression: '-f values-prod.yaml', line: 10 }]);
    expect(r?.object.values).toEqual({ settings: { clusterName: 'prod' } });
  });

  it('types values as helm does, splits pairs, keeps --set-string strings and escaped dots', () => {
    const r = read(
      'helm template karpenter oci://public.ecr.aws/karpenter/karpenter --set replicas=2,logLevel=debug --set-string settings.batchMaxDuration=10 --set serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::1:role/k',
    );
    expect(r?.object.values).toEqual({
      replicas: 2,
      logLevel: 'debug',
      settings: { batchMaxDuration: '10' },
      serviceAccount: { annotations: { 'eks.amazonaws.com/role-arn': 'arn:aws:iam::1:role/k' } },
    });
  });

  it('another chart is not Karpenter', () => {
    expect(read('helm upgrade --install karpenter-crd oci://public.ecr.aws/karpenter/karpenter-crd --version 1.0.6')).toBeUndefined();
    expect(read('helm upgrade --install metrics metrics-server/metrics-server --set args={--kubelet-insecure-tls}')).toBeUndefined();
  });
});

describe('a command piped through yq or jq', () => {
  it('types a plain field path of one named object', () => {
    expect(parseCommand("$ kubectl get nodepool general -o yaml | yq '.spec.disruption'")?.extract).toEqual({
      keys: ['spec', 'disruption'],
      typed: { kind: 'NodePool', apiVersion: 'karpenter.sh/v1', name: 'general' },
      via: "yq '.spec.disruption'",
    });
    expect(parseCommand('kubectl get nodeclaim/batch-x7k2p -o json | jq .status')?.extract?.keys).toEqual(['status']);
  });

  it('does not type filters, lists or unnamed objects', () => {
    expect(parseCommand("kubectl get nodepools -o yaml | yq '.items[].spec'")?.extract).toBeUndefined();
    expect(parseCommand('kubectl get nodepool general -o yaml | yq .spec.template.spec.requirements[0]')?.extract).toBeUndefined();
    expect(parseCommand('kubectl get nodepool general -o yaml | grep budgets')?.extract).toBeUndefined();
    expect(parseCommand('kubectl get nodepool general -o yaml | yq .metadata')?.extract).toBeUndefined();
  });
});
