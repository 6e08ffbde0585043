/**
 * The first five minutes, as a newcomer spends them: a fresh clone of the committed HEAD, the README's first command
 * exactly as it is written there, then the package as users get it — `npm pack` in that clone, the tarball installed
 * into an empty directory, `npx karpdoctor scan` on a dump copied there. Uncommitted changes are not in the clone: this
 * checks what a push would publish.
 *
 * npm reaches the registry (the only network these tests use); `npm_config_prefer_offline` lets it take what its
 * cache already holds instead of asking again, which changes no command. The environment of the `npm test` that runs
 * this file (npm_* variables, this checkout's node_modules/.bin on PATH) is not passed on: a newcomer has none of it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
// Installing devDependencies and building on a shared 2-core machine takes minutes, not seconds.
const INSTALL_TIMEOUT = 15 * 60_000;
const EXAMPLE_RULES = ['uninitialized-taint-lingering', 'node-unhealthy-not-repaired', 'storageclass-immediate-binding'];

const work = mkdtempSync(join(tmpdir(), 'karpdoctor-newcomer-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The README's first code block, one command a line. */
function readmeCommands(readme: string): string[] {
  const block = /```(?:sh|bash|shell)?\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
}

/** What a newcomer's shell has: no npm_* variables from a surrounding `npm test`, no other checkout's bins on PATH. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD') env[k] = v;
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => !/node_modules[\\/]\.bin|node-gyp-bin/.test(p))
    .join(delimiter);
  return { ...env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command line as typed into a shell (asynchronously, so the test's timeout can still stop it). */
function shell(command: string, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd, shell: true, env: newcomerEnv(), timeout: INSTALL_TIMEOUT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function git(args: string[], cwd: string): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The example's findings as the terminal report prints them, with no stack trace on stderr. */
function expectExampleReport(r: Ran): void {
  expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  expect(r.code, r.stderr.slice(-2000)).toBe(1);
  for (const rule of EXAMPLE_RULES) expect(r.stdout).toMatch(new RegExp(`^ERROR ${rule}(?: |$)`, 'm'));
  expect(r.stdout).toMatch(/\n4 error\(s\), 1 warning\(s\), 0 info/);
}

const clone = join(work, 'karpdoctor');
let commands: string[] | undefined;
/** A fresh clone of HEAD, and the README's opening commands as it holds them. */
function readmeOfClone(): string[] {
  if (!commands) {
    const head = git(['rev-parse', 'HEAD'], ROOT);
    git(['clone', '--quiet', '--no-checkout', ROOT, clone], work);
    git(['checkout', '--quiet', '--detach', head], clone);
    commands = readmeCommands(readFileSync(join(clone, 'README.md'), 'utf8'));
  }
  return commands;
}
let first: Promise<Ran> | undefined;
/** The README's first command in the clone, run once; the pack test goes on from what it installed and built. */
const firstCommand = () => (first ??= shell(readmeOfClone()[0]!, clone));

describe('a newcomer with Node and npm and a fresh clone', () => {
  it('finds two commands at the top of the README: install and scan the example, then the tests', () => {
    expect(readmeOfClone()).toEqual(['npm ci && npx karpdoctor scan fixtures/example-cluster', 'npm test']);
  });

  it(
    "runs the README's first command as written and gets the example's report",
    async () => {
      expectExampleReport(await firstCommand());
    },
    INSTALL_TIMEOUT,
  );

  it(
    'packs bin, dist, README and LICENSE only, installs the tarball in an empty directory and scans a dump with npx',
    async () => {
      expect((await firstCommand()).code).toBe(1);
      // The clone's `npm ci` has just built dist/ (prepare): packing it as built is what `npm publish` would ship.
      const packed = await shell(`npm pack --json --ignore-scripts --pack-destination ${JSON.stringify(work)}`, clone);
      expect(packed.code, packed.stderr).toBe(0);
      const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
      const files = tarball!.files.map((f) => f.path);
      expect(files.filter((f) => !/^(bin|dist)\//.test(f)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
      expect(files).toEqual(expect.arrayContaining(['bin/karpdoctor.js', 'dist/cli/main.js', 'dist/loaders/parse-worker.js']));
      // Source maps would point at src/, which is not shipped.
      expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
      console.info(`npm pack: ${tarball!.filename}, ${(tarball!.size / 1024).toFixed(0)} kB`);

      const user = join(work, 'user');
      mkdirSync(user);
      const installed = await shell(`npm install ${JSON.stringify(join(work, tarball!.filename))}`, user);
      expect(installed.code, installed.stderr).toBe(0);
      cpSync(join(ROOT, 'fixtures', 'example-cluster'), join(user, 'dump'), { recursive: true });
      const scanned = await shell('npx karpdoctor scan dump', user);
      expectExampleReport(scanned);
      expect(scanned.stdout).toContain('dump/nodes.json:');
    },
    INSTALL_TIMEOUT,
  );
});
