/**
 * The version the controller states of itself: at start it logs "discovered karpenter version" with its build version
 * (a debug record, every generation; docs/karpenter-behaviour.md §8.6). That is the binary speaking, so it stands
 * above what a ticket states; a version shown by what runs now (image tag, Helm label, `--karpenter-version`) stands
 * above it, as the log may be from before an upgrade — a disagreement is noted, never dropped.
 */
import type { LogRecord } from '../kube/types.js';
import { formatVersion, notARelease, parseVersion } from '../kube/version.js';
import type { ControllerInfo } from './controller-info.js';
import { logSays } from './messages/karpenter-logs.js';
import { classifyCloudError } from './messages/cloud-errors.js';

/** A record carrying an Azure Resource Manager code (SubnetIsFull, the cores quota, AllocationFailed, …). */
function fromAzure(log: LogRecord): boolean {
  // Only failures carry a cloud's code: the INFO and DEBUG bulk of a long log is not classified.
  if (log.level !== undefined && log.level !== 'ERROR' && log.level !== 'WARN') return false;
  const text = typeof log.fields.error === 'string' ? `${log.message}\n${log.fields.error}` : log.message;
  return classifyCloudError(text).some((c) => c.provider === 'azure');
}

export function useLoggedVersion(info: ControllerInfo, logs: readonly LogRecord[]): void {
  const bound = traceBound(logs);
  if (bound) info.traceBound = bound;
  // Which provider wrote the logs decides what a version number means (provider-version.ts): Azure's releases have
  // their own numbers, and a ticket that shows only Azure's errors states an Azure release.
  if (logs.some(fromAzure)) info.azureInLogs = true;
  const said = latestStatement(logs);
  if (!said) return;
  // AKS Node Auto Provisioning builds the Azure provider as `<release>-aks` (azure:hack/release/common.sh): Azure's number.
  if (/^v?\d+\.\d+\.\d+-aks$/.test(said.version)) info.azureInLogs = true;
  const version = parseVersion(said.version)!;
  const where = `${said.log.provenance.source}${said.log.provenance.line ? `:${said.log.provenance.line}` : ''}`;
  const evidence = `controller log: "discovered karpenter version" ${said.version} (${where})`;
  if (!info.version) {
    info.version = version;
    info.versionSource = 'log';
    info.versionEvidence = evidence;
    info.versionFileAt = where;
    return;
  }
  if (formatVersion(info.version) !== formatVersion(version))
    info.note = [info.note, `the ${evidence} differs from v${formatVersion(info.version)} (${info.versionSource}): logs from before an upgrade?`]
      .filter(Boolean)
      .join('; ');
}

/** The newest statement that names a real release (records in input order when they carry no time). */
function latestStatement(logs: readonly LogRecord[]): { log: LogRecord; version: string } | undefined {
  let found: { log: LogRecord; version: string } | undefined;
  for (const log of logs) {
    // Only a record with a `version` field can be it: the others are not classified here, at start-up.
    if (log.fields.version === undefined || !logSays(log, 'version-discovered')) continue;
    const version = String(log.fields.version).trim();
    const parsed = parseVersion(version);
    if (!parsed || notARelease(parsed)) continue;
    if (!found || !found.log.time || !log.time || log.time >= found.log.time) found = { log, version };
  }
  return found;
}

/**
 * The core module a stack trace names, up to v0.37: `github.com/aws/karpenter-core@v0.30.0/pkg/…` (v0.20–v0.31),
 * `sigs.k8s.io/karpenter@v0.33.1/pkg/…` (v0.32–v0.37). The provider shared core's numbers then, but it pins core as a
 * pseudo-version between tags (`v0.30.1-0.20230905…-abc`, built on v0.30.0 and possibly released as v0.31.0): only
 * the minor series is safe, and one more for a pseudo-version (docs/karpenter-behaviour.md §0.1).
 */
const CORE_FRAME = /(github\.com\/aws\/karpenter-core|sigs\.k8s\.io\/karpenter)@v0\.(\d+)\.(\d+)(-0\.\d{14}-[0-9a-f]+)?\//;

const FIRST_CORE_TAG = 21;

function traceBound(logs: readonly LogRecord[]): ControllerInfo['traceBound'] {
  for (const log of logs) {
    const trace = log.fields.stacktrace;
    const m = CORE_FRAME.exec(`${typeof trace === 'string' ? trace : ''}\n${log.message}`);
    if (!m) continue;
    const minor = Number(m[2]);
    // Before its first tag (v0.21) core was pinned as v0.0.x pseudo-versions: no series to read.
    if (minor < FIRST_CORE_TAG) continue;
    const pseudo = Boolean(m[4]);
    const where = `${log.provenance.source}${log.provenance.line ? `:${log.provenance.line}` : ''}`;
    const series = pseudo ? `v0.${minor}.x or v0.${minor + 1}.x` : `v0.${minor}.x`;
    return {
      min: [0, minor, 0],
      max: [0, pseudo ? minor + 1 : minor, Infinity],
      why: `a stack trace runs ${m[1]}@v0.${m[2]}.${m[3]}${m[4] ?? ''} (${where}), so the controller is ${series}`,
    };
  }
  return undefined;
}
