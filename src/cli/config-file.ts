/** Finding and reading `.karpdoctor.yaml` and the baseline: the file-system side of the engine's configuration. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseBaseline, type BaselineEntry } from '../engine/baseline.js';
import { ConfigFileError, parseConfig, type KarpdoctorConfig } from '../engine/config.js';
import { globToRegExp } from '../engine/glob.js';
import type { RuleMeta } from '../engine/rule.js';
import { UsageError } from './errors.js';

const CONFIG_NAMES = ['.karpdoctor.yaml', '.karpdoctor.yml'];

export interface LoadedConfig {
  config: KarpdoctorConfig;
  /** Directory the config's relative paths (baseline, ignorePaths) are relative to. */
  dir: string;
}

/** `--config FILE`, else the first `.karpdoctor.yaml` upward from the first scanned path (the working directory when live). */
export function loadConfig(explicit: string | undefined, paths: string[], rules: readonly RuleMeta[]): LoadedConfig | undefined {
  const file = explicit ?? findUpward(paths.find((p) => p !== '-') ?? '.');
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read the configuration ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try {
    return { config: parseConfig(text, displayPath(file), rules), dir: dirname(resolve(file)) };
  } catch (e) {
    if (e instanceof ConfigFileError) throw new UsageError(`invalid configuration:\n  ${e.problems.join('\n  ')}`);
    throw e;
  }
}

function findUpward(start: string): string | undefined {
  let dir = resolve(start);
  if (existsSync(dir) && !statSync(dir).isDirectory()) dir = dirname(dir);
  for (;;) {
    for (const name of CONFIG_NAMES) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function displayPath(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : resolve(file);
}

/** The baseline named by `--baseline` (relative to the working directory) or by the config (relative to its file). */
export function baselinePath(flag: string | undefined, loaded: LoadedConfig | undefined): string | undefined {
  if (flag) return flag;
  if (loaded?.config.baseline) return displayPath(resolve(loaded.dir, loaded.config.baseline));
  return undefined;
}

export function loadBaseline(path: string): BaselineEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UsageError(`cannot read the baseline ${path}: ${missing ? 'no such file (create it with `karpdoctor baseline create`)' : (e as Error).message}`);
  }
  try {
    return parseBaseline(text, path);
  } catch (e) {
    if (e instanceof ConfigFileError) throw new UsageError(e.problems.join('\n'));
    throw e;
  }
}

/** `ignorePaths` globs, relative to the config's directory, as a test on absolute file paths. */
export function ignoredPathTest(loaded: LoadedConfig | undefined): ((absPath: string) => boolean) | undefined {
  const globs = loaded?.config.ignorePaths ?? [];
  if (!globs.length) return undefined;
  const res = globs.map((g) => globToRegExp(g));
  return (absPath) => {
    const rel = relative(loaded!.dir, absPath);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) return false;
    const posix = rel.split(sep).join('/');
    return res.some((re) => re.test(posix));
  };
}
