/**
 * Command-line entry. Heavy modules load only for the command that needs them, so `--version` and `--help` are
 * instant. User mistakes exit 2 with one line; only a real bug shows a stack trace (and asks for a report).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from './errors.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export async function main(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name('karpdoctor')
    .description('Diagnose Kubernetes clusters that run the Karpenter node autoscaler, from dumps or a live cluster.')
    .version(pkg.version, '-V, --version')
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str.startsWith('error:') ? `karpdoctor: ${str}` : str) })
    .showSuggestionAfterError();

  program
    .command('scan')
    .description('load cluster state and report what stops Karpenter from doing its job')
    .argument('[paths...]', 'files, directories, archives (.tar, .tar.gz, .tgz, .zip) or - for stdin')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .addOption(new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity').choices(['error', 'warning', 'info', 'none']).default('error'))
    .option('--rule <id>', 'run only this rule (repeatable)', collect, [])
    .option('--disable-rule <id>', 'do not run this rule (repeatable)', collect, [])
    .option('--rule-option <rule.option=value>', 'set a rule threshold, e.g. node-unhealthy-not-repaired.toleration=45m (repeatable)', collect, [])
    .option('--now <time>', 'reference time (RFC3339) for "for longer than" checks; default: the latest time in the dump')
    .option('--karpenter-version <version>', 'Karpenter version to assume when the input does not show it')
    .option('--kubeconfig <file>', 'kubeconfig for a live scan (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context for a live scan')
    .option('-n, --namespace <ns>', 'live scan: list namespaced objects of this namespace only')
    .option('--logs', 'live scan: also read the Karpenter controller logs of the last hour')
    .option('--jobs <n>', 'worker threads for parsing large inputs (default: one per core when the input is large; 0 = none)')
    .option('--timing', 'print load, snapshot and per-rule times to stderr')
    .option('-v, --verbose', 'list every rule that was not evaluated, with its reason')
    .action(async (paths: string[], opts) => {
      const { scanCommand } = await import('./scan.js');
      exitCode = await scanCommand(paths, opts, pkg.version);
    });

  program
    .command('rules')
    .description('list the rule catalog')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json', 'markdown']).default('table'))
    .action(async (opts: { format: string }) => {
      const [{ RULES }, catalog] = await Promise.all([import('../rules/index.js'), import('../reporters/catalog.js')]);
      const text =
        opts.format === 'json'
          ? catalog.rulesJson(RULES)
          : opts.format === 'markdown'
            ? catalog.rulesMarkdown(RULES)
            : catalog.rulesTable(RULES, useColor(), process.stdout.columns ?? 120);
      process.stdout.write(text);
    });

  program
    .command('explain')
    .description('what a rule detects, why it matters in Karpenter, how to fix it, with examples')
    .argument('<rule>', 'rule id, e.g. node-unhealthy-not-repaired')
    .action(async (id: string) => {
      const [{ RULES, findRule }, { explainText }] = await Promise.all([import('../rules/index.js'), import('../reporters/catalog.js')]);
      const rule = findRule(id);
      if (!rule) {
        const close = RULES.map((r) => r.meta.id).filter((r) => r.includes(id) || id.split('-').some((w) => w.length > 3 && r.includes(w)));
        throw new UsageError(`unknown rule "${id}"${close.length ? ` — did you mean ${close.slice(0, 3).join(', ')}?` : ''} (see \`karpdoctor rules\`)`);
      }
      process.stdout.write(explainText(rule, useColor()));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version land here too, with exit code 0.
      return e.exitCode === 0 ? 0 : 2;
    }
    if (e instanceof UsageError) {
      process.stderr.write(`karpdoctor: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(
      `karpdoctor: internal error: ${(e as Error)?.stack ?? e}\nThis is a bug in karpdoctor; please report it with the command you ran.\n`,
    );
    return 3;
  }
}

function useColor(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}
