/**
 * The README's "Scanning a ticket" examples are real runs: each `<!-- ticket-NAME:start -->` block shows input lines
 * (`$ sed -n 'A,Bp' FILE`, which must be exactly those lines of the fixture) and output (`$ karpdoctor …`, whose lines
 * must appear in that order in what the built CLI prints at 80 columns; `[...]` marks lines left out).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/<!-- ticket-([\w-]+):start -->\n(`{3,4})text\n([\s\S]*?)\n\2\n<!-- ticket-\1:end -->/g)].map(
  (m) => [m[1]!, m[3]!] as const,
);

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

describe("README 'Scanning a ticket': every example is what the fixture holds and the CLI prints", () => {
  it('has an example of each shape of a ticket', () => {
    // Issue 10's shapes: embedded outputs, log records as pasted, describe, get tables, rules on partial objects,
    // causes from records alone, objects without a name, nothing read.
    expect(BLOCKS.map(([name]) => name).sort()).toEqual(['describe', 'embedded', 'get', 'logs', 'nothing', 'partial', 'records-only', 'unnamed']);
  });

  it.each(BLOCKS)('%s', (_name, block) => {
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
  });
});
