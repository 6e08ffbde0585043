/**
 * `--format sarif`: checked by the official validator (`sarif-multitool validate`, spec/cli.md § SARIF quality), and
 * result by result against the GateView it renders: locations, regions, fingerprints, suppressions, notifications.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isUnreadableInput } from '../src/loaders/skip-summary.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { explainText } from '../src/reporters/catalog.js';
import { renderFix } from '../src/engine/rule.js';
import { FINGERPRINT_KEY, GITHUB_FINGERPRINT_KEY, MAX_RESULTS, renderSarif } from '../src/reporters/sarif.js';
import { RULES } from '../src/rules/index.js';
import { lineInObject } from './rules/fixture-helpers.js';
import { gateScan } from './support/gate.js';
import { runSarifValidator, skipWithout } from './support/machine-tools.js';
import { gateFinding, ODD_FILE, reporterInputs, reportOf } from './support/gate-view.js';
import { FIXTURES } from './support/scan.js';

/** SARIF is checked as the plain JSON a consumer reads. */
type Json = any;

/** The validator's own findings about the files, as `level ruleId: message`. */
function validate(files: string[], ruleKinds?: string): string[] {
  const out = join(mkdtempSync(join(tmpdir(), 'karpdoctor-sarif-report-')), 'report.sarif');
  runSarifValidator(['validate', ...files, '-o', out, '--log', 'ForceOverwrite', ...(ruleKinds ? ['--rule-kind', ruleKinds] : [])]);
  const run = JSON.parse(readFileSync(out, 'utf8')).runs[0];
  const rules: Json[] = run.tool.driver.rules ?? [];
  return (run.results ?? []).map((r: Json) => {
    const rule = rules[r.ruleIndex];
    let text: string = r.message.id ? (rule?.messageStrings?.[r.message.id]?.text ?? r.message.id) : r.message.text;
    (r.message.arguments ?? []).forEach((a: string, i: number) => (text = text.replace(`{${i}}`, a)));
    return `${r.level ?? 'warning'} ${r.ruleId}: ${text}`;
  });
}

function writeTemp(name: string, text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'karpdoctor-sarif-')), name);
  writeFileSync(file, text);
  return file;
}

let inputs: Awaited<ReturnType<typeof reporterInputs>>;
let sarif: string;
let run: Json;
let mixedSarif: string;

beforeAll(async () => {
  inputs = await reporterInputs();
  sarif = renderSarif(inputs.report, inputs.gate, RULES, { baseDir: inputs.dir });
  run = JSON.parse(sarif).runs[0];
  const mixed = await gateScan([join(FIXTURES, 'mixed-incidents')], { only: RULES.map((r) => r.meta.id) });
  mixedSarif = renderSarif(reportOf(mixed.report, mixed.gate), mixed.gate, RULES, { baseDir: FIXTURES });
}, 60_000);

describe.skipIf(skipWithout('sarifValidator'))('the official validator', () => {
  it('finds no error and no warning in a manifest-repo log or in a cluster-dump log', () => {
    const files = [writeTemp('repo.sarif', sarif), writeTemp('dump.sarif', mixedSarif)];
    const problems = validate(files);
    const notes = problems.filter((p) => p.startsWith('note '));
    if (notes.length) console.info(`validator notes:\n${notes.join('\n')}`);
    expect(problems.filter((p) => !p.startsWith('note '))).toEqual([]);
  }, 60_000);

  it('passes GitHub’s ingestion rules too when every result is in a file (the dump log)', () => {
    expect(validate([writeTemp('dump.sarif', mixedSarif)], 'Sarif;Gh').filter((p) => !p.startsWith('note '))).toEqual([]);
  }, 60_000);
});

describe('tool and rule descriptors', () => {
  it('describes every rule, not only those with results, from its metadata', () => {
    const driver = run.tool.driver;
    expect(driver).toMatchObject({ name: 'karpdoctor', version: '0.1.0', semanticVersion: '0.1.0' });
    expect(driver.informationUri).toMatch(/^https:\/\//);
    expect(driver.rules.map((r: Json) => r.id)).toEqual(RULES.map((r) => r.meta.id));
    for (const [i, rule] of RULES.entries()) {
      const d = driver.rules[i];
      const m = rule.meta;
      expect(d.name).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(d.shortDescription.text.startsWith(m.summary.trim().replace(/\.$/, ''))).toBe(true);
      expect(d.fullDescription.text.startsWith(m.rationale.trim().replace(/\.$/, ''))).toBe(true);
      expect(d.help.text).toBe(explainText(rule));
      expect(d.help.markdown).toContain(renderFix(m.fix));
      if (m.examples) expect(d.help.markdown).toContain(m.examples.good.trim());
      expect(d.helpUri).toBe(m.references[0]);
      expect(d.defaultConfiguration.level).toBe({ error: 'error', warning: 'warning', info: 'note' }[m.defaultSeverity]);
      expect(d.properties).toMatchObject({ category: m.category, 'spec-only': m.specOnly });
      expect(d.properties.tags.length).toBeLessThanOrEqual(10);
    }
    expect(driver.rules.find((r: Json) => r.id === 'pdb-blocks-eviction').name).toBe('PdbBlocksEviction');
  });

  it('declares the repository root and the column unit the locator counts in', () => {
    expect(run.originalUriBaseIds['%SRCROOT%'].uri).toBe(`${pathToFileURL(inputs.dir).href}/`);
    expect(run.columnKind).toBe('utf16CodeUnits');
  });
});

describe('results', () => {
  const result = (name: string, ruleId?: string) =>
    run.results.find((r: Json) => r.locations[0].logicalLocations[0].name === name && (!ruleId || r.ruleId === ruleId));

  it('one result per finding of the view, active and suppressed, with rule index, level and fingerprint', () => {
    expect(run.results).toHaveLength(inputs.gate.findings.length);
    inputs.gate.findings.forEach((g, i) => {
      const r = run.results[i];
      expect(r.ruleId).toBe(g.finding.ruleId);
      expect(run.tool.driver.rules[r.ruleIndex].id).toBe(g.finding.ruleId);
      expect(r.level).toBe({ error: 'error', warning: 'warning', info: 'note' }[g.finding.severity]);
      expect(r.partialFingerprints).toEqual({ [FINGERPRINT_KEY]: g.fingerprint, [GITHUB_FINGERPRINT_KEY]: g.fingerprint });
      expect(r.message.text.startsWith(g.finding.message)).toBe(true);
      expect(r.message.text).toContain(g.finding.fix);
    });
  });

  it('points at the offending field: repository-relative, percent-encoded URI and the exact region', () => {
    const loc = inputs.pdb.location!;
    const r = result('api', 'pdb-blocks-eviction');
    expect(r.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'apps/checkout/deploy%2Cment%3Av1.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 30, startColumn: 3, endLine: loc.endLine, endColumn: loc.endColumn },
    });
    expect(decodeURIComponent(r.locations[0].physicalLocation.artifactLocation.uri)).toBe(ODD_FILE);
    expect(r.locations[0].logicalLocations).toEqual([
      {
        name: 'api',
        fullyQualifiedName: 'PodDisruptionBudget/checkout/api',
        kind: 'resource',
        properties: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', namespace: 'checkout' },
      },
    ]);
    // Evidence cites the quoted field in a repository: the PDB's own minAvailable is the primary location (not repeated),
    // the Deployment's replicas its one related location.
    const odd = join(inputs.dir, ODD_FILE);
    expect(lineInObject(odd, 'PodDisruptionBudget', 'api', 'minAvailable: 2')).toBe(30);
    expect(lineInObject(odd, 'Deployment', 'api', 'replicas: 2')).toBe(7);
    expect(r.relatedLocations.map((l: Json) => `${l.physicalLocation.artifactLocation.uri}:${l.physicalLocation.region.startLine} ${l.message.text}`)).toEqual([
      'apps/checkout/deploy%2Cment%3Av1.yaml:7 Deployment checkout/api /spec/replicas.',
    ]);
  });

  it('related locations cite the line of each evidence field; a field left out, its nearest parent (the object when top-level)', () => {
    const at = (r: Json) => r.relatedLocations.map((l: Json) => `${l.physicalLocation.artifactLocation.uri}:${l.physicalLocation.region.startLine}`);
    const pool = join(inputs.dir, 'karpenter/nodepool-general-purpose.yaml');
    const expire = result('general-purpose', 'expire-without-termination-grace-period');
    expect(expire.locations[0].physicalLocation.region.startLine).toBe(lineInObject(pool, 'NodePool', 'general-purpose', 'expireAfter: 720h'));
    // No terminationGracePeriod: the pod template's `spec:` it belongs in.
    expect(at(expire)).toEqual([
      `karpenter/nodepool-general-purpose.yaml:${lineInObject(pool, 'NodePool', 'general-purpose', 'spec:', 'template:')}`,
      'apps/checkout/deploy%2Cment%3Av1.yaml:30',
      'apps/checkout/deploy%2Cment%3Av1.yaml:7',
    ]);
    expect(at(expire)[0]).toBe('karpenter/nodepool-general-purpose.yaml:13');
    const sc = join(inputs.dir, 'storage/storageclass-gp3.yaml');
    const gp3 = result('gp3', 'storageclass-immediate-binding');
    // No volumeBindingMode at all: the primary location and its evidence are the StorageClass's first line, past the comments.
    expect(gp3.locations[0].physicalLocation.region.startLine).toBe(3);
    expect(at(gp3)).toEqual([
      `storage/storageclass-gp3.yaml:${lineInObject(sc, 'StorageClass', 'gp3', 'provisioner: ebs.csi.aws.com')}`,
      `karpenter/nodepool-general-purpose.yaml:${lineInObject(pool, 'NodePool', 'general-purpose', '- key: topology.kubernetes.io/zone')}`,
    ]);
    expect(at(gp3)).toEqual(['storage/storageclass-gp3.yaml:9', 'karpenter/nodepool-general-purpose.yaml:32']);
  });

  it('without a field location, falls back to the first file line the evidence cites (the template labels)', () => {
    const r = result('orders-db', 'stateful-workload-exposed-to-interruption');
    expect(r.level).toBe('warning');
    expect(lineInObject(join(inputs.dir, 'apps/orders-db/statefulset.yaml'), 'StatefulSet', 'orders-db', 'labels:', 'template:')).toBe(14);
    expect(r.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'apps/orders-db/statefulset.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 14 },
    });
  });

  it('a live object has a logical location only', () => {
    const r = run.results[2];
    expect(r.level).toBe('error');
    expect(r.locations[0].physicalLocation).toBeUndefined();
    expect(r.locations[0].logicalLocations[0].fullyQualifiedName).toBe('StatefulSet/orders/orders-db');
    expect(r.relatedLocations).toBeUndefined();
  });

  it('an archive member has no URI in SARIF: its location’s text names the member and line', () => {
    const r = result('api-archived');
    expect(r.locations[0].physicalLocation).toBeUndefined();
    expect(r.locations[0].message.text).toBe('In bundle.tar.gz!apps/pdb.yaml:13.');
    expect(r.relatedLocations).toBeUndefined();
  });

  it('suppressed findings carry SARIF suppressions: in-source with the annotation’s place, external from config or baseline', () => {
    const inSource = result('general-purpose', 'expire-without-termination-grace-period');
    expect(inSource.suppressions).toEqual([
      {
        kind: 'inSource',
        status: 'accepted',
        justification: 'drains are bounded by the platform webhook',
        location: {
          physicalLocation: {
            artifactLocation: { uri: 'karpenter/nodepool-general-purpose.yaml', uriBaseId: '%SRCROOT%' },
            region: { startLine: 6, startColumn: 5, endLine: 6, endColumn: 80 },
          },
        },
        properties: { origin: 'annotation karpdoctor.io/ignore on NodePool general-purpose' },
      },
    ]);
    expect(result('gp3').suppressions[0]).toMatchObject({
      kind: 'external',
      justification: 'legacy class, removed in Q3',
      location: { physicalLocation: { artifactLocation: { uri: '.karpdoctor.yaml', uriBaseId: '%SRCROOT%' }, region: { startLine: 7, startColumn: 1 } } },
    });
    expect(result('gp2').suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'accepted in the baseline', properties: { origin: 'baseline .karpdoctor-baseline.json' } },
    ]);
    expect(run.results.filter((r: Json) => !r.suppressions)).toHaveLength(inputs.report.findings.length);
  });
});

describe('invocation notifications', () => {
  const notes = (id: string) => run.invocations[0].toolExecutionNotifications.filter((n: Json) => n.descriptor.id === id);

  it('reports skipped inputs, unused suppressions, stale baseline entries and rules not run', () => {
    expect(run.invocations[0].executionSuccessful).toBe(true);
    const skipped = notes('skipped-input');
    // Only input that was meant to be read and could not be: tooling such as kustomization.yaml is no alert.
    expect(inputs.report.snapshot.skipped.map((x) => x.reason)).toContain('Kustomize configuration, not a Kubernetes object');
    expect(skipped).toHaveLength(inputs.report.snapshot.skipped.filter(isUnreadableInput).length);
    expect(skipped.map((n: Json) => n.locations?.[0].physicalLocation.artifactLocation.uri)).not.toContain('kustomization.yaml');

    const [unused] = notes('unused-suppression');
    expect(unused.level).toBe('warning');
    expect(unused.message.text).toContain('node-memory-pressure');
    expect(unused.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'karpenter/nodepool-general-purpose.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 7, startColumn: 5 },
    });

    const [stale] = notes('stale-baseline-entry');
    expect(stale).toMatchObject({ level: 'note', associatedRule: { id: 'pdb-blocks-eviction' } });
    expect(stale.message.text).toContain('PodDisruptionBudget web/gone');

    const notRun = notes('rule-not-evaluated');
    expect(notRun.map((n: Json) => n.associatedRule.id)).toEqual(inputs.report.notEvaluated.map((n) => n.ruleId));
    expect(notRun.every((n: Json) => n.level === 'note')).toBe(true);
    for (const n of run.invocations[0].toolExecutionNotifications) expect(run.tool.driver.notifications[n.descriptor.index].id).toBe(n.descriptor.id);
  });
});

describe('GitHub limits', () => {
  it('keeps at most 25,000 results, active and most severe first, and says so', () => {
    const { gate, report } = inputs;
    const many = Array.from({ length: MAX_RESULTS + 5 }, (_, i) =>
      gateFinding(
        { ...gate.findings[0]!.finding, object: { ...gate.findings[0]!.finding.object, name: `pdb-${i}` } },
        '/spec/minAvailable',
        null,
        i < 3 ? 'error' : 'info',
      ),
    );
    const big = { ...gate, findings: [...many, ...gate.findings.filter((g) => g.suppression)] };
    const out = JSON.parse(renderSarif(reportOf(report, big), big, RULES, { baseDir: inputs.dir })).runs[0];
    expect(out.results).toHaveLength(MAX_RESULTS);
    expect(out.results.filter((r: Json) => r.level === 'error')).toHaveLength(3);
    expect(out.results.some((r: Json) => r.suppressions)).toBe(false);
    expect(out.invocations[0].toolExecutionNotifications.find((n: Json) => n.descriptor.id === 'results-truncated').message.text).toMatch(
      /^\d+ of 25008 results left out/,
    );
  });
});

describe('messages as data (CONTRIBUTING.md "Messages as data")', () => {
  it('every rule descriptor carries its messageStrings, with positional placeholders and doubled literal braces', () => {
    const mixed = JSON.parse(mixedSarif).runs[0];
    for (const rule of RULES) {
      const d = mixed.tool.driver.rules.find((x: Json) => x.id === rule.meta.id);
      expect(Object.keys(d.messageStrings ?? {})).toEqual(Object.keys(rule.meta.messages ?? {}));
      for (const { text } of Object.values<{ text: string }>(d.messageStrings ?? {})) expect(text).not.toMatch(/\{[A-Za-z_]/);
    }
  });

  it("a result's message.id and arguments, filled into that string, give the finding's message (before the engine's own clauses)", () => {
    const mixed = JSON.parse(mixedSarif).runs[0];
    expect(mixed.results.length).toBeGreaterThan(5);
    for (const r of mixed.results) {
      const rule = mixed.tool.driver.rules[r.ruleIndex];
      const format: string = rule.messageStrings[r.message.id].text;
      const filled = format
        .replace(/\{(\d+)\}/g, (_, i: string) => r.message.arguments[Number(i)])
        .replace(/\{\{/g, '{')
        .replace(/\}\}/g, '}');
      // The string ends a sentence (SARIF2001): its period may be the one the message's last value already has.
      expect(r.message.text.startsWith(filled.replace(/\.$/, ''))).toBe(true);
    }
  });
});
