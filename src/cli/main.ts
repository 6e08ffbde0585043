/**
 * Command-line entry. Heavy modules load only for the command that needs them, so `--version` and `--help` are
 * instant. User mistakes exit 2 with one line; only a real bug shows a stack trace (and asks for a report).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from './errors.js';
import { limitHeapGrowth } from './heap.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export async function main(argv: string[]): Promise<number> {
  limitHeapGrowth();
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
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json', 'sarif', 'markdown', 'github', 'html']).default('table'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .option('-c, --config <file>', 'configuration file (default: .karpdoctor.yaml found upward from the scanned path)')
    .option('--baseline <file>', 'report only findings that are not in this baseline file (see `karpdoctor baseline`)')
    .option('--no-inline-suppressions', 'ignore karpdoctor.io/ignore annotations (central teams: only the config file may suppress)')
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding is at or above this severity (default: error, or failOn in the config)').choices([
        'error',
        'warning',
        'info',
        'none',
      ]),
    )
    .option('--rule <id>', 'run only this rule (repeatable)', collect, [])
    .option('--disable-rule <id>', 'do not run this rule (repeatable)', collect, [])
    .option('--rule-option <rule.option=value>', 'set a rule threshold, e.g. node-unhealthy-not-repaired.toleration=45m (repeatable)', collect, [])
    .option('--now <time>', 'reference time (RFC3339) for "for longer than" checks; default: the latest time in the dump')
    .option('--karpenter-version <version>', 'Karpenter version to assume when the input does not show it')
    .option('--crds <path>', 'Karpenter CRD manifests (file or directory, or the karpenter-crd chart) to validate objects against')
    .option('--no-crd-download', 'never download the CRDs of the detected Karpenter version (use --crds or CRDs in the input)')
    .option(
      '--assume-complete',
      'a repository scan: the files hold everything the cluster runs, so a reference they do not resolve is missing (default: created elsewhere, not judged)',
    )
    .option(
      '--against <state>',
      'apply the scanned repository over this cluster state (a dump, an archive, or live) and report what the change introduces and resolves',
    )
    .option('--fail-on-all', 'with --against: count unchanged findings too, not only those the change introduces')
    .option(
      '--base <path>',
      'with --against: the repository before the change (a checkout of the base branch); objects it has and the scanned repository does not are deleted by the change',
    )
    .option('--kubeconfig <file>', 'kubeconfig for a live scan (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context for a live scan')
    .option('-n, --namespace <ns>', 'live scan: list namespaced objects of this namespace only')
    .option('--logs', 'live scan: also read the Karpenter controller logs of the last hour')
    .option('--log-limit <size>', 'live scan: read at most this much of each controller log, e.g. 64Mi (default) or 512Ki')
    .option('--request-timeout <duration>', 'live scan: timeout of each API request, e.g. 30s or 2m', '30s')
    .option('--jobs <n>', 'worker threads for parsing large inputs, besides the main thread (default: one per other core when the input is large; 0 = none)')
    .option('--profile', 'print the time and memory of each phase, and the ten costliest rules and readers, to stderr (and as `profile` in the JSON report)')
    .option('--timing', 'the same as --profile, on stderr only')
    .option('-v, --verbose', 'list every rule that was not evaluated, with its reason')
    .option('--brief', 'table format: one line per finding (file:line, severity, rule, object, message)')
    .option('--ascii', 'table format: plain ASCII, no box drawing or typographic glyphs (the default when not on a terminal)')
    .option('--no-color', 'no colours (also when NO_COLOR is set; colours are used only on a terminal)')
    .action(async (paths: string[], opts) => {
      if (opts.base !== undefined && opts.against === undefined)
        throw new UsageError('--base needs --against: karpdoctor scan REPO --against STATE --base BASE');
      if (opts.against !== undefined) {
        const { againstCommand } = await import('./against.js');
        exitCode = await againstCommand(paths, opts, pkg.version);
        return;
      }
      const { scanCommand } = await import('./scan.js');
      exitCode = await scanCommand(paths, opts, pkg.version);
    });

  program
    .command('diff')
    .description(
      'compare two dumps, archives or saved JSON reports of one cluster: findings introduced, resolved and unchanged, and the Karpenter configuration that changed',
    )
    .argument('<before>', 'the earlier dump, archive or `scan --format json` report')
    .argument('<after>', 'the later one')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json', 'sarif', 'markdown', 'github', 'html']).default('table'))
    .option('-o, --output <file>', 'write the report to a file instead of stdout')
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when an introduced finding is at or above this severity (default: error)').choices([
        'error',
        'warning',
        'info',
        'none',
      ]),
    )
    .option('--fail-on-all', 'count unchanged findings too, not only introduced ones')
    .option('--rule <id>', 'run only this rule (repeatable)', collect, [])
    .option('--disable-rule <id>', 'do not run this rule (repeatable)', collect, [])
    .option('--karpenter-version <version>', 'Karpenter version to assume when an input does not show it')
    .option('--no-crd-download', 'never download the CRDs of the detected Karpenter version')
    .action(async (before: string, after: string, opts) => {
      const { diffCommand } = await import('./diff.js');
      exitCode = await diffCommand(before, after, opts, pkg.version);
    });

  program
    .command('timeline')
    .description('the life of a node, NodeClaim, NodePool or pod (or of a pool, or the cluster) as one ordered story')
    .argument('[paths...]', 'what to read, as for `scan` (none: the live cluster)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('-o, --output <file>', 'write the timeline to a file instead of stdout')
    .option('--kind <kind>', 'only this kind: Node, NodeClaim, NodePool or Pod (NodeClaim includes v1alpha5 Machines, NodePool Provisioners)')
    .option('--name <name>', 'only the story of this object (a Node also shows its NodeClaim, and the other way round; pods as namespace/name)')
    .option('--nodepool <name>', "only this NodePool and its nodes' and NodeClaims' stories")
    .option('--since <time>', 'from this time: RFC3339, or a duration before the reference time (2h)')
    .option('--until <time>', 'up to this time: RFC3339, or a duration before the reference time')
    .option('--now <time>', 'reference time (RFC3339); default: the latest time in the input')
    .option('-c, --config <file>', 'configuration file, as for `scan`')
    .option('--karpenter-version <version>', 'Karpenter version to assume when the input does not show it')
    .option('--no-crd-download', 'never download the CRDs of the detected Karpenter version')
    .option('--kubeconfig <file>', 'kubeconfig for a live read (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context for a live read')
    .option('-n, --namespace <ns>', 'live: list namespaced objects of this namespace only')
    .option('--logs', 'live: also read the Karpenter controller logs of the last hour')
    .option('--log-limit <size>', 'live: read at most this much of each controller log, e.g. 64Mi (default) or 512Ki')
    .option('--request-timeout <duration>', 'live: timeout of each API request, e.g. 30s or 2m', '30s')
    .option('--ascii', 'plain ASCII: no typographic glyphs (the default when not on a terminal)')
    .action(async (paths: string[], opts) => {
      const { timelineCommand } = await import('./timeline.js');
      exitCode = await timelineCommand(paths, opts, pkg.version);
    });

  program
    .command('baseline')
    .description('record the current findings so that CI fails only on new ones')
    .argument('<action>', 'create (write the baseline from a scan) or prune (drop entries that no longer match a finding)')
    .argument('[paths...]', 'what to scan, as for `scan`')
    .option('--baseline <file>', 'baseline file (default: baseline in the config, else .karpdoctor-baseline.json)')
    .option('-c, --config <file>', 'configuration file (default: .karpdoctor.yaml found upward from the scanned path)')
    .option('--now <time>', 'reference time (RFC3339)')
    .option('--karpenter-version <version>', 'Karpenter version to assume when the input does not show it')
    .option('--crds <path>', 'Karpenter CRD manifests (file or directory, or the karpenter-crd chart), as for `scan`')
    .option('--no-crd-download', 'never download the CRDs of the detected Karpenter version')
    .option(
      '--assume-complete',
      'a repository scan: the files hold everything the cluster runs, so a reference they do not resolve is missing (default: created elsewhere, not judged)',
    )
    .action(async (action: string, paths: string[], opts) => {
      const { baselineCommand } = await import('./baseline.js');
      exitCode = await baselineCommand(action, paths, opts, pkg.version);
    });

  program
    .command('rbac')
    .description('print the least-privilege ClusterRole (and binding) that a live scan or collect of the enabled rules needs')
    .option('--rule <id>', 'only what this rule needs (repeatable)', collect, [])
    .option('--disable-rule <id>', 'leave out what only this rule needs (repeatable)', collect, [])
    .option('--logs', 'also allow reading the Karpenter controller logs')
    .option('--name <name>', 'name of the ClusterRole', 'karpdoctor-reader')
    .option('--service-account <namespace/name>', 'also print a ClusterRoleBinding for this ServiceAccount')
    .action(async (opts) => {
      const { rbacCommand } = await import('./rbac.js');
      exitCode = await rbacCommand(opts);
    });

  program
    .command('collect')
    .description('gather what the rules need from the live cluster into one redacted archive that `scan` reads')
    .requiredOption('-o, --output <file>', 'archive to write (.tar.gz)')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context')
    .option('-n, --namespace <ns>', 'collect namespaced objects of this namespace only')
    .option('--no-logs', 'do not collect the Karpenter controller logs')
    .option('--log-limit <size>', 'collect at most this much of each controller log, e.g. 64Mi (default) or 512Ki')
    .option('--anonymize', 'replace names and namespaces by keyed hashes (the key stays with you)')
    .option('--anonymize-key <file>', 'file holding the anonymization key (created with a new random key if absent)')
    .option('--request-timeout <duration>', 'timeout of each API request, e.g. 30s or 2m', '30s')
    .action(async (opts) => {
      const { collectCommand } = await import('./collect.js');
      exitCode = await collectCommand(opts, pkg.version);
    });

  program
    .command('rules')
    .description('list the rule catalog')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json', 'markdown']).default('table'))
    .option('--ascii', 'plain ASCII: no box drawing or typographic glyphs (the default when not on a terminal)')
    .option('--no-color', 'no colours (also when NO_COLOR is set; colours are used only on a terminal)')
    .action(async (opts: { format: string; ascii?: boolean; color?: boolean }) => {
      const { terminalStyle } = await import('./terminal.js');
      const [{ RULES }, catalog] = await Promise.all([import('../rules/index.js'), import('../reporters/catalog.js')]);
      const text =
        opts.format === 'json'
          ? catalog.rulesJson(RULES)
          : opts.format === 'markdown'
            ? catalog.rulesMarkdown(RULES)
            : catalog.rulesTable(RULES, terminalStyle(opts, false));
      process.stdout.write(text);
    });

  program
    .command('explain')
    .description('what a rule detects, why it matters in Karpenter, how to fix it, with examples')
    .argument('<rule>', 'rule id, e.g. node-unhealthy-not-repaired')
    .option('--ascii', 'plain ASCII: no typographic glyphs (the default when not on a terminal)')
    .option('--no-color', 'no colours (also when NO_COLOR is set; colours are used only on a terminal)')
    .action(async (id: string, opts: { ascii?: boolean; color?: boolean }) => {
      const [{ RULES, findRule }, { explainText }, { terminalStyle }] = await Promise.all([
        import('../rules/index.js'),
        import('../reporters/catalog.js'),
        import('./terminal.js'),
      ]);
      const rule = findRule(id);
      if (!rule) {
        const close = RULES.map((r) => r.meta.id).filter((r) => r.includes(id) || id.split('-').some((w) => w.length > 3 && r.includes(w)));
        throw new UsageError(`unknown rule "${id}"${close.length ? ` — did you mean ${close.slice(0, 3).join(', ')}?` : ''} (see \`karpdoctor rules\`)`);
      }
      process.stdout.write(explainText(rule, terminalStyle(opts, false)));
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
    const file = fileProblem(e);
    if (file) {
      process.stderr.write(`karpdoctor: ${file}\n`);
      return 2;
    }
    process.stderr.write(`karpdoctor: internal error: ${(e as Error)?.stack ?? e}\nThis is a bug in karpdoctor; please report it with the command you ran.\n`);
    return 3;
  }
}

/** What the file system said of a path the user gave (--output into a missing folder, a read-only file): theirs to fix. */
const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

function fileProblem(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException | undefined;
  const why = err?.code ? FILE_PROBLEMS[err.code] : undefined;
  return why && err?.path ? `cannot ${err.syscall ?? 'use'} ${err.path}: ${why}` : undefined;
}
