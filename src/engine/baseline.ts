/**
 * The baseline: findings a team has accepted for now, keyed by rule + object identity + JSON pointer (never line
 * numbers), so CI fails only on new findings and a re-formatted file changes nothing. The file is meant to be
 * committed: stable order, no timestamps, one entry per finding.
 */
import { ConfigFileError } from './config.js';
import type { Finding } from './findings.js';

export interface BaselineEntry {
  ruleId: string;
  object: { kind: string; namespace?: string; name: string };
  pointer: string;
  fingerprint: string;
}

const BASELINE_VERSION = 1;

export function parseBaseline(text: string, path: string): BaselineEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigFileError([`${path}: not a karpdoctor baseline (invalid JSON: ${(e as Error).message})`]);
  }
  const d = data as { version?: unknown; findings?: unknown };
  if (typeof d !== 'object' || d === null || d.version !== BASELINE_VERSION || !Array.isArray(d.findings)) {
    throw new ConfigFileError([
      `${path}: not a karpdoctor baseline (expected {"version": ${BASELINE_VERSION}, "findings": [...]}); recreate it with \`karpdoctor baseline create\``,
    ]);
  }
  return d.findings.map((e: unknown, i: number) => {
    const x = e as Partial<BaselineEntry>;
    if (typeof x?.ruleId !== 'string' || typeof x.fingerprint !== 'string' || typeof x.object?.kind !== 'string' || typeof x.object?.name !== 'string') {
      throw new ConfigFileError([
        `${path}: entry ${i} lacks ruleId, object.kind, object.name or fingerprint; recreate the baseline with \`karpdoctor baseline create\``,
      ]);
    }
    return { ruleId: x.ruleId, object: x.object, pointer: typeof x.pointer === 'string' ? x.pointer : '', fingerprint: x.fingerprint };
  });
}

/** A finding as the gate anchors it (see GateFinding). */
export function baselineEntryOf(g: { finding: Finding; pointer: string; fingerprint: string }): BaselineEntry {
  const { kind, namespace, name } = g.finding.object;
  return { ruleId: g.finding.ruleId, object: { kind, ...(namespace ? { namespace } : {}), name }, pointer: g.pointer, fingerprint: g.fingerprint };
}

export function renderBaseline(entries: BaselineEntry[]): string {
  const unique = new Map(entries.map((e) => [e.fingerprint, e]));
  const sorted = [...unique.values()].sort(
    (a, b) =>
      a.ruleId.localeCompare(b.ruleId) ||
      a.object.kind.localeCompare(b.object.kind) ||
      (a.object.namespace ?? '').localeCompare(b.object.namespace ?? '') ||
      a.object.name.localeCompare(b.object.name) ||
      a.pointer.localeCompare(b.pointer),
  );
  return `${JSON.stringify({ version: BASELINE_VERSION, tool: 'karpdoctor', findings: sorted }, null, 2)}\n`;
}

export function staleEntry(e: BaselineEntry): BaselineEntry {
  return { ruleId: e.ruleId, object: e.object, pointer: e.pointer, fingerprint: e.fingerprint };
}
