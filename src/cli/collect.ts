/**
 * `karpdoctor collect -o bundle.tar.gz`: reads the cluster through the live loader (the same requests as a live
 * scan, so `karpdoctor rbac` covers both), redacts, optionally anonymizes, and writes one archive that
 * `karpdoctor scan bundle.tar.gz` reads with the same findings.
 */
import { Anonymizer, defaultKeyPath, loadOrCreateKey } from '../collect/anonymize.js';
import { buildBundle } from '../collect/bundle.js';
import { writeTarGz } from '../collect/tar.js';
import { UsageError } from './errors.js';
import { logLimitFlag, readCluster, requestTimeoutFlag } from './read-cluster.js';
import type { LiveResult } from '../loaders/live.js';

export interface CollectOptions {
  output: string;
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** commander's `--no-logs`: true unless switched off. */
  logs?: boolean;
  /** `--log-limit`: bytes of each controller log collected at most. */
  logLimit?: string;
  anonymize?: boolean;
  anonymizeKey?: string;
  requestTimeout?: string;
}

export async function collectCommand(opts: CollectOptions, toolVersion: string): Promise<number> {
  if (!/\.(tar\.gz|tgz)$/.test(opts.output)) throw new UsageError(`--output must name a .tar.gz (or .tgz) file, got "${opts.output}"`);
  const requestTimeoutMs = requestTimeoutFlag(opts.requestTimeout);
  const logLimitBytes = logLimitFlag(opts.logLimit);
  const anonymizer = opts.anonymize || opts.anonymizeKey ? openAnonymizer(opts.anonymizeKey) : undefined;
  const logs = opts.logs !== false;
  // No summary of the listing: the "wrote …" line below is the summary of a collect.
  const live = await readCluster({
    ...(opts.kubeconfig ? { kubeconfig: opts.kubeconfig } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(logLimitBytes !== undefined ? { logLimitBytes } : {}),
    logs,
    keepLogText: true,
    summary: false,
  });
  refuseEmptyRead(live);
  const { entries, manifest } = buildBundle(live, {
    toolVersion,
    logs,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(anonymizer ? { anonymizer } : {}),
  });
  try {
    await writeTarGz(opts.output, entries);
  } catch (e) {
    throw new UsageError(`cannot write ${opts.output}: ${(e as Error).message}`);
  }
  const collected = manifest.kinds.filter((k) => k.status === 'collected');
  const objects = collected.reduce((n, k) => n + (k.count ?? 0), 0);
  const denied = manifest.kinds.filter((k) => k.status === 'denied').map((k) => k.resource);
  const failed = manifest.kinds.filter((k) => k.status === 'failed').map((k) => k.resource);
  const incomplete = manifest.kinds.filter((k) => k.status === 'incomplete');
  const lines = [
    `wrote ${opts.output}: ${objects} objects of ${collected.length} kinds${manifest.logs.files.length ? `, logs of ${manifest.logs.files.length} controller pod(s)` : ''}${anonymizer ? ', names anonymized' : ''}`,
    ...(denied.length ? [`no permission to list ${denied.join(', ')}: the rules that need them will say so (see \`karpdoctor rbac\`)`] : []),
    ...(failed.length ? [`could not list ${failed.join(', ')} (see karpdoctor-manifest.json)`] : []),
    ...incomplete.map((k) => `${k.message ?? k.resource}: not written, the rules that need it will say so`),
    ...(manifest.logs.cut ?? []).map((c) => `${c.file}: ${c.reason}`),
    ...(logs && manifest.logs.status !== 'collected' ? [`controller logs not collected: ${manifest.logs.detail}`] : []),
  ];
  process.stderr.write(lines.map((l) => `karpdoctor: ${l}\n`).join(''));
  return 0;
}

/**
 * A bundle in which no list could be read would scan as a cluster with nothing wrong: it is not written, and the
 * command fails with what the lists answered (as the API server's denials and errors say why).
 */
function refuseEmptyRead(live: LiveResult): void {
  if (live.resources.some((r) => r.status === 'listed')) return;
  const reasons = [
    ...new Set(
      live.resources
        .filter((r) => r.status !== 'absent')
        .map((r) => live.denied.get(r.input ?? '') ?? live.incomplete.get(r.input ?? '') ?? r.message ?? r.status),
    ),
  ];
  const shown = reasons.slice(0, 3).join('; ');
  throw new UsageError(
    `read nothing from the cluster: none of the ${live.resources.length} lists could be read${shown ? ` (${shown}${reasons.length > 3 ? `; and ${reasons.length - 3} more` : ''})` : ''}; no bundle written (see \`karpdoctor rbac\` for the permissions collect needs)`,
  );
}

function openAnonymizer(keyFile: string | undefined): Anonymizer {
  const path = keyFile ?? defaultKeyPath();
  let loaded;
  try {
    loaded = loadOrCreateKey(path);
  } catch (e) {
    throw new UsageError(`cannot use the anonymization key ${path}: ${(e as Error).message}`);
  }
  process.stderr.write(
    loaded.created
      ? `karpdoctor: created a new anonymization key in ${path}: keep it, never send it (it turns names into the bundle's hashes)\n`
      : `karpdoctor: anonymizing with the key in ${path}\n`,
  );
  return new Anonymizer(loaded.key);
}
