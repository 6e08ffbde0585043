/**
 * `--format markdown` (PR comments) and `--format github` (Actions workflow commands), on the same GateView as the
 * SARIF tests: the ci-gate fixture through the real pipeline, with every suppression case present.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GateView } from '../src/engine/gate.js';
import { escapeData, escapeProperty, renderGithubAnnotations } from '../src/reporters/github.js';
import { MARKDOWN_LIMIT, renderMarkdown } from '../src/reporters/markdown.js';
import { reportContext, type ReportContext } from '../src/reporters/report.js';
import { RULES } from '../src/rules/index.js';
import { lineInObject } from './rules/fixture-helpers.js';
import { gateFinding, ODD_FILE, ONLY, reporterInputs, reportOf } from './support/gate-view.js';

let inputs: Awaited<ReturnType<typeof reporterInputs>>;
let ctx: ReportContext;

beforeAll(async () => {
  inputs = await reporterInputs();
  const rules = RULES.filter((r) => ONLY.includes(r.meta.id));
  ctx = reportContext(inputs.scan.snapshot, { ...inputs.scan.run, findings: inputs.report.findings }, rules);
}, 60_000);

/** The view with one more active finding whose message and file name need escaping. */
function withOddMessage(): GateView {
  const { gate, pdb } = inputs;
  const odd = gateFinding({ ...pdb.finding, message: '100% of pods\r\nblocked: a, b | c <script>' }, '/spec/minAvailable', pdb.location);
  return { ...gate, findings: [odd, ...gate.findings] };
}

describe('GitHub Actions annotations', () => {
  let lines: string[];
  beforeAll(() => {
    lines = renderGithubAnnotations(inputs.report, inputs.gate, { baseDir: inputs.dir }).trimEnd().split('\n');
  });

  it('one command per active finding, errors first, then unused suppressions, then a summary line', () => {
    const active = inputs.gate.findings.filter((g) => !g.suppression);
    expect(lines).toHaveLength(active.length + inputs.gate.unusedSuppressions.length + 1);
    expect(lines.map((l) => /^::(\w+) /.exec(l)?.[1])).toEqual(['error', 'warning', 'warning', 'warning', 'warning', undefined]);
    expect(lines.at(-1)).toBe(
      'karpdoctor 0.1.0: 1 error(s), 3 warning(s), 0 info; 2 suppressed, 1 in the baseline, 1 unused suppression(s), 1 stale baseline entry',
    );
  });

  it('locates a finding at its field, with the file relative to the repository and `,` `:` escaped in it', () => {
    const loc = inputs.pdb.location!;
    const line = lines.find((l) => l.includes('title=pdb-blocks-eviction') && l.includes('file='))!;
    expect(line.startsWith(`::warning file=apps/checkout/deploy%2Cment%3Av1.yaml,line=30,col=3,endColumn=${loc.endColumn},title=pdb-blocks-eviction::`)).toBe(
      true,
    );
    expect(line).toContain(escapeData(`${inputs.pdb.finding.message}\n\nFix: ${inputs.pdb.finding.fix}`));
  });

  it('a finding without a file location has no file property; an archive member names itself in the message', () => {
    expect(lines[0]!.startsWith('::error title=stateful-workload-exposed-to-interruption::')).toBe(true);
    const archived = lines.find((l) => l.includes('title=pdb-blocks-eviction') && !l.includes('file='))!;
    expect(archived).toContain('[bundle.tar.gz!apps/pdb.yaml:13]');
  });

  it('reports an unused suppression as a warning at the annotation', () => {
    expect(lines).toContain(
      '::warning file=karpenter/nodepool-general-purpose.yaml,line=7,col=5,title=karpdoctor%3A unused suppression::suppression matched no finding: node-memory-pressure — "memory is fine here" (annotation karpdoctor.io/ignore on NodePool general-purpose)',
    );
  });

  it('escapes %, CR and LF in messages, and also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
    expect(escapeProperty('a:b,c%d\ne')).toBe('a%3Ab%2Cc%25d%0Ae');
    const out = renderGithubAnnotations(inputs.report, withOddMessage(), { baseDir: inputs.dir });
    expect(out).toContain('::100%25 of pods%0D%0Ablocked: a, b | c <script>%0A%0AFix: ');
    // Every command stays on one line.
    expect(
      out
        .trimEnd()
        .split('\n')
        .filter((l) => l.startsWith('::')),
    ).toHaveLength(6);
  });
});

describe('markdown for PR comments', () => {
  let md: string;
  beforeAll(() => {
    md = renderMarkdown(inputs.report, inputs.gate, ctx);
  });

  it('opens with counts, what was scanned, the reference time and version', () => {
    expect(md.startsWith('### karpdoctor: 1 error, 3 warnings, 0 info\n')).toBe(true);
    expect(md).toContain(`Reference time ${inputs.report.snapshot.referenceTime}`);
    expect(md).toContain('Karpenter version unknown');
    expect(md).toContain('karpdoctor 0.1.0');
    expect(md).toContain(`${ctx.objectCount} object(s) (desired-state manifests)`);
    expect(md).toContain('Not counted: 2 suppressed, 1 accepted in the baseline');
  });

  it('tables the active findings only, with rule, object and file:line, and folds evidence and fix per finding', () => {
    const rows = md.split('\n').filter((l) => /^\| (\*\*error\*\*|warning|info) \|/.test(l));
    expect(rows).toHaveLength(inputs.report.findings.length);
    expect(rows[1]).toMatch(
      /^\| warning \| `pdb-blocks-eviction` \| PodDisruptionBudget checkout\/api \| `.*deploy,ment:v1\.yaml:30` \| PodDisruptionBudget checkout\/api never allows/,
    );
    expect(rows[0]).toMatch(/^\| \*\*error\*\* \| `stateful-workload-exposed-to-interruption` \| StatefulSet orders\/orders-db \| — \|/);
    expect(md.match(/<details><summary><code>/g)).toHaveLength(inputs.report.findings.length);
    expect(md).toContain(`- PodDisruptionBudget checkout/api \`/spec/minAvailable\` = \`2\``);
    // In a repository each evidence line cites the field it quotes (`minAvailable: 2`, `replicas: 2`), not the object start.
    const odd = join(inputs.dir, ODD_FILE);
    expect(lineInObject(odd, 'PodDisruptionBudget', 'api', 'minAvailable: 2')).toBe(30);
    expect(lineInObject(odd, 'Deployment', 'api', 'replicas: 2')).toBe(7);
    expect(md).toContain(`- PodDisruptionBudget checkout/api \`/spec/minAvailable\` = \`2\` (\`${odd}:30\`)`);
    expect(md).toContain(`- Deployment checkout/api \`/spec/replicas\` = \`2\` (\`${odd}:7\`)`);
    expect(md).toContain(inputs.pdb.finding.fix);
    expect(md).not.toMatch(/^\| .*expire-without-termination-grace-period/m);
  });

  it('lists suppressed findings with their reasons, unused suppressions and stale baseline entries', () => {
    expect(md).toContain('<details><summary>Suppressed or accepted in the baseline (3)</summary>');
    expect(md).toContain('“drains are bounded by the platform webhook” (annotation karpdoctor.io/ignore on NodePool general-purpose)');
    expect(md).toContain('**Suppressions that matched nothing (1)**');
    expect(md).toContain('`node-memory-pressure`: “memory is fine here”');
    expect(md).toContain('- `pdb-blocks-eviction` on PodDisruptionBudget web/gone `/spec/minAvailable`');
    expect(md).toContain('<details><summary>Inputs skipped (2)</summary>');
  });

  it('folds the rules not evaluated into one section', () => {
    const report = { ...inputs.report, notEvaluated: [{ ruleId: 'node-stuck-draining', reason: 'no Nodes and Pods in the snapshot' }] };
    const out = renderMarkdown(report, inputs.gate, ctx);
    expect(out).toContain('<details><summary>Rules not evaluated (1) — they need cluster state, which a manifest repository does not hold</summary>');
    expect(out).toContain('- `node-stuck-draining`: no Nodes and Pods in the snapshot');
  });

  it('keeps a table cell on one line and shows no raw HTML from messages', () => {
    const out = renderMarkdown(inputs.report, withOddMessage(), ctx);
    expect(out).toContain('| 100% of pods blocked: a, b \\| c &lt;script&gt; |');
  });

  it('stays under GitHub’s 65,536-character comment limit and says what it left out', () => {
    const { gate, pdb, report } = inputs;
    const many = Array.from({ length: 3000 }, (_, i) =>
      gateFinding({ ...pdb.finding, object: { ...pdb.finding.object, name: `api-${i}` } }, '/spec/minAvailable', pdb.location),
    );
    const big = { ...gate, findings: [...many, ...gate.findings.filter((g) => g.suppression)] };
    const out = renderMarkdown(reportOf(report, big), big, ctx);
    expect(out.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    const rows = out.split('\n').filter((l) => l.startsWith('| warning |')).length;
    expect(rows).toBeGreaterThan(50);
    expect(rows).toBeLessThan(3000);
    const details = out.match(/<details><summary><code>/g)!.length;
    expect(details).toBeGreaterThan(10);
    expect(details).toBeLessThan(rows);
    expect(out).toContain(
      `Truncated to fit a GitHub comment: ${3000 - rows} of 3000 findings are not in the table; ${rows - details} findings have no details here`,
    );
    expect(out).toContain('<details><summary>Suppressed or accepted in the baseline (3)</summary>');
  });
});
