/** The test side of tool-probes.ts: skip what needs a missing tool (unless CI requires it), run the SARIF validator. */
import { execFileSync } from 'node:child_process';
import { inject } from 'vitest';
import { toolsRequired, type ToolName } from './tool-probes.js';

/** True when the tests needing `tool` are skipped: it is missing here and CI does not require it. */
export function skipWithout(tool: ToolName): boolean {
  return !toolsRequired() && !inject('machineTools')[tool].present;
}

/** Runs the official SARIF validator (`validate …`), or fails with what to install. */
export function runSarifValidator(args: string[]): void {
  const tool = inject('machineTools').sarifValidator;
  if (!tool.present) throw new Error(`the official SARIF validator is required here (CI=true): ${tool.missing}`);
  execFileSync(tool.command!, args, { stdio: 'pipe', env: { ...process.env, ...tool.env } });
}
