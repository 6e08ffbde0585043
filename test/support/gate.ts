/** Test harness for the CI gate: the real pipeline in-process, then field locations, suppressions and baseline. */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldLocator } from '../../src/cli/field-locations.js';
import type { BaselineEntry } from '../../src/engine/baseline.js';
import { parseConfig } from '../../src/engine/config.js';
import { buildGate } from '../../src/engine/gate.js';
import { RULES } from '../../src/rules/index.js';
import { scan, FIXTURES } from './scan.js';

export interface GateScanOptions {
  only: string[];
  config?: string;
  inlineSuppressions?: boolean;
  baseline?: BaselineEntry[];
}

export async function gateScan(paths: string[], opts: GateScanOptions) {
  const config =
    opts.config === undefined
      ? undefined
      : parseConfig(
          opts.config,
          '.karpdoctor.yaml',
          RULES.map((r) => r.meta),
        );
  const r = await scan(paths, {
    only: opts.only,
    disabled: config?.disabled ?? [],
    severity: config?.severity ?? {},
    options: config?.options ?? {},
  });
  const notRun = new Set(r.notEvaluated.map((n) => n.ruleId));
  const gate = buildGate({
    findings: r.findings,
    snapshot: r.snapshot,
    evaluated: new Set(opts.only.filter((id) => !notRun.has(id) && !config?.disabled.includes(id))),
    knownRules: new Set(RULES.map((x) => x.meta.id)),
    ...(config ? { config } : {}),
    inlineSuppressions: opts.inlineSuppressions ?? true,
    ...(opts.baseline ? { baseline: { path: '.karpdoctor-baseline.json', entries: opts.baseline } } : {}),
    locate: fieldLocator(r.snapshot),
  });
  return { ...r, gate, active: gate.findings.filter((g) => !g.suppression), suppressed: gate.findings.filter((g) => g.suppression) };
}

/** A private copy of a fixture directory, to edit freely. */
export function copyFixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-gate-'));
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  return dir;
}
