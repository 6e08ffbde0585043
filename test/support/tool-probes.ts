/**
 * Tools some tests need that `npm ci` does not bring to every machine: Debian's chromium (the HTML report in a browser)
 * and the official SARIF validator (@microsoft/sarif-multitool, a self-contained .NET program in a per-platform
 * optional dependency). Each is probed once per run by running it (global-setup.ts). Where one is missing its tests
 * are skipped and the run prints one line saying what to install — except under CI=true, where they run and fail with
 * that line: CI must not pass on checks it did not make. The test side is machine-tools.ts.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { CHROMIUM } from '../../scripts/chromium.mjs';

export type ToolName = 'chromium' | 'sarifValidator';

export interface ToolProbe {
  present: boolean;
  /** When not present: what the probe saw and what to install. */
  missing?: string;
  /** How to run it, when present (the validator's platform binary). */
  command?: string;
  /** Environment the tool needs here (see probeSarifValidator). */
  env?: Record<string, string>;
}

// Handed from global-setup.ts to the test files.
declare module 'vitest' {
  export interface ProvidedContext {
    machineTools: Record<ToolName, ToolProbe>;
  }
}

/** Which tests each tool serves, for the line a run prints when it is missing. */
export const TOOL_USERS: Record<ToolName, string> = {
  chromium: "the HTML report's browser test",
  sarifValidator: 'the SARIF validator checks',
};

/** CI=true (or 1): tests that need a tool run without it and fail, instead of being skipped. */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(true|1)$/i.test(env.CI ?? '');
}

export function probeTools(): Record<ToolName, ToolProbe> {
  return { chromium: probeChromium(), sarifValidator: probeSarifValidator() };
}

function probeChromium(): ToolProbe {
  const install = "install Debian's chromium package (apt-get install -y chromium), as .ci/run does";
  if (!existsSync(CHROMIUM)) return { present: false, missing: `${CHROMIUM} is missing: ${install}` };
  const r = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? { present: true } : { present: false, missing: `\`${CHROMIUM} --version\` failed (${firstLine(r)}): ${install}` };
}

/** What .NET prints when it finds no libicu; the same message offers the invariant-globalization switch. */
const NO_ICU = /Couldn't find a valid ICU package/;

function probeSarifValidator(): ToolProbe {
  let command: string;
  try {
    // The package's main is the path of the binary from @microsoft/sarif-multitool-<platform>.
    command = createRequire(import.meta.url)('@microsoft/sarif-multitool') as string;
  } catch {
    return {
      present: false,
      missing: `@microsoft/sarif-multitool has no binary for ${process.platform}-${process.arch} here: run \`npm ci\` (optional dependencies included) on Linux x64, macOS or Windows`,
    };
  }
  const version = (env: Record<string, string>) => spawnSync(command, ['--version'], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  let r = version({});
  if (r.status === 0) return { present: true, command };
  // Without libicu .NET aborts at start-up. Its invariant mode needs no ICU, and checking a JSON file against the SARIF
  // schema and rules depends on no culture, so the validator still checks everything it checks elsewhere.
  if (NO_ICU.test(`${r.stdout}${r.stderr}`)) {
    const env = { DOTNET_SYSTEM_GLOBALIZATION_INVARIANT: '1' };
    r = version(env);
    if (r.status === 0) return { present: true, command, env };
  }
  return {
    present: false,
    missing: `\`${command} --version\` failed (${firstLine(r)}): the validator is a self-contained .NET program; install what it names (glibc, libstdc++, zlib; libicu)`,
  };
}

function firstLine(r: SpawnSyncReturns<string>): string {
  const text = `${r.stderr ?? ''}\n${r.stdout ?? ''}`.split('\n').find((l) => l.trim());
  return text?.trim() ?? (r.error ? r.error.message : `exit ${r.status ?? r.signal}`);
}
