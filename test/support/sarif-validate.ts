/** The official SARIF validator's verdict on one log, as `level ruleId: message` lines (notes left out). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSarifValidator } from './machine-tools.js';

export function sarifProblems(sarif: string, ruleKinds?: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'karpdoctor-sarif-check-'));
  const file = join(dir, 'log.sarif');
  const out = join(dir, 'validation.sarif');
  writeFileSync(file, sarif);
  runSarifValidator(['validate', file, '-o', out, '--log', 'ForceOverwrite', ...(ruleKinds ? ['--rule-kind', ruleKinds] : [])]);
  const run = JSON.parse(readFileSync(out, 'utf8')).runs[0];
  const rules: Array<{ messageStrings?: Record<string, { text: string }> }> = run.tool.driver.rules ?? [];
  return (run.results ?? [])
    .map((r: { level?: string; ruleId: string; ruleIndex: number; message: { id?: string; text?: string; arguments?: string[] } }) => {
      let text = r.message.id ? (rules[r.ruleIndex]?.messageStrings?.[r.message.id]?.text ?? r.message.id) : (r.message.text ?? '');
      (r.message.arguments ?? []).forEach((a, i) => (text = text.replace(`{${i}}`, a)));
      return `${r.level ?? 'warning'} ${r.ruleId}: ${text}`;
    })
    .filter((p: string) => !p.startsWith('note '));
}
