/**
 * The examples of the README (one per way of using karpdoctor, `<!-- example-NAME:start -->`), of
 * docs/dumps-and-tickets.md (one per shape of a ticket, `<!-- ticket-NAME:start -->`) and of docs/changes.md (one per
 * command, `<!-- change-NAME:start -->`) are real runs: each block shows
 * input lines (`$ sed -n 'A,Bp' FILE`, which must be exactly those lines of the fixture) and output
 * (`$ karpdoctor …`, whose lines must appear in that order in what the built CLI prints at 80 columns; `[...]` marks
 * lines left out).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

/** The `<!-- PREFIX-NAME:start -->` blocks of one page, by name. */
function blocks(page: string, prefix: string): Array<readonly [string, string]> {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const block = new RegExp(`<!-- ${prefix}-([\\w-]+):start -->\\n(\`{3,4})text\\n([\\s\\S]*?)\\n\\2\\n<!-- ${prefix}-\\1:end -->`, 'g');
  return [...text.matchAll(block)].map((m) => [m[1]!, m[3]!] as const);
}

const TICKETS = blocks('docs/dumps-and-tickets.md', 'ticket');
const README = blocks('README.md', 'example');
const CHANGES = blocks('docs/changes.md', 'change');

interface Step {
  command: string;
  shown: string[];
}

/** A `sed -n 'A,Bp'` step owns exactly its B-A+1 lines, which may themselves start with a prompt. */
function steps(block: string): Step[] {
  const out: Step[] = [];
  let owned = 0;
  for (const line of block.split('\n')) {
    if (owned > 0 || !line.startsWith('$ ')) {
      out.at(-1)?.shown.push(line);
      owned--;
      continue;
    }
    out.push({ command: line.slice(2), shown: [] });
    const range = /^\$ sed -n '(\d+),(\d+)p' /.exec(line);
    owned = range ? Number(range[2]) - Number(range[1]) + 1 : 0;
  }
  return out;
}

/** The shown chunks (split at `[...]`) each appear whole, one after another. */
function expectInOrder(actual: string, shown: string[]): void {
  let from = 0;
  const chunks = shown
    .join('\n')
    .split(/\n?\[\.\.\.\]\n?/)
    .filter(Boolean);
  for (const chunk of chunks) {
    const at = actual.indexOf(chunk, from);
    expect(at, `not found after offset ${from}:\n${chunk}\n--- in ---\n${actual}`).toBeGreaterThanOrEqual(0);
    from = at + chunk.length;
  }
}

function check(block: string): void {
  for (const step of steps(block)) {
    const sed = /^sed -n '(\d+),(\d+)p' (\S+)$/.exec(step.command);
    if (sed) {
      const lines = readFileSync(join(ROOT, sed[3]!), 'utf8').split('\n');
      expect(step.shown).toEqual(lines.slice(Number(sed[1]) - 1, Number(sed[2])));
      continue;
    }
    const args = /^karpdoctor (.*?)(?:; echo "exit \$\?")?$/.exec(step.command)?.[1]?.split(' ');
    expect(args, step.command).toBeDefined();
    const r = spawnSync(process.execPath, [BIN, ...args!], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' } });
    expectInOrder(`${r.stdout}${r.stderr}${step.command.endsWith('echo "exit $?"') ? `exit ${r.status}\n` : ''}`, step.shown);
  }
}

describe('README: an example of each way people use karpdoctor, as the fixture holds it and the CLI prints it', () => {
  it('scan a cluster, gate a repository, read a ticket or a dump', () => {
    expect(README.map(([name]) => name)).toEqual(['cluster', 'repository', 'ticket']);
  });

  it.each(README)('%s', (_name, block) => check(block));
});

describe('docs/dumps-and-tickets.md: every example is what the fixture holds and the CLI prints', () => {
  it('has an example of each shape of a ticket', () => {
    // Issue 10's shapes: embedded outputs, log records as pasted, describe, get tables, rules on partial objects,
    // causes from records alone, objects without a name, nothing read.
    expect(TICKETS.map(([name]) => name).sort()).toEqual(['describe', 'embedded', 'get', 'logs', 'nothing', 'partial', 'records-only', 'unnamed']);
  });

  it.each(TICKETS)('%s', (_name, block) => check(block));
});

describe('docs/changes.md: an example of each command, as the CLI prints it', () => {
  it('has one for scan --against and one for diff', () => {
    expect(CHANGES.map(([name]) => name)).toEqual(['against', 'diff']);
  });

  it.each(CHANGES)('%s', (_name, block) => check(block));
});
