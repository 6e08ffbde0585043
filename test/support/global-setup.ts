/**
 * Once per test run, in vitest's main process: probe the tools some tests need (tool-probes.ts), print one line for
 * each that is missing, and hand the result to the test files.
 */
import type { TestProject } from 'vitest/node';
import { probeTools, TOOL_USERS, toolsRequired, type ToolName } from './tool-probes.js';

export default function setup(project: TestProject): void {
  const tools = probeTools();
  for (const [name, tool] of Object.entries(tools) as Array<[ToolName, (typeof tools)[ToolName]]>) {
    if (tool.present) continue;
    const outcome = toolsRequired() ? 'required under CI=true, so they fail' : 'skipped';
    console.log(`${TOOL_USERS[name]}: ${outcome} — ${tool.missing}`);
  }
  project.provide('machineTools', tools);
}
