/**
 * `karpdoctor-manifest.json`, the completeness record of a support bundle (`karpdoctor collect` writes it): which
 * kinds were collected (how many), denied (403, with the API server's message) or absent (404), whether controller
 * logs came along, and how the bundle was redacted. This reader takes it back in, so a denied kind gives the same
 * "not evaluated: no permission to list …" as the live scan did, instead of looking merely absent.
 */
import { readAll, type Reader } from './reader.js';

export const MANIFEST_FILE = 'karpdoctor-manifest.json';
export const MANIFEST_FORMAT = 'karpdoctor.io/bundle-manifest/v1';

export interface ManifestKind {
  /** `pods`, `nodepools.karpenter.sh`. */
  resource: string;
  kind: string;
  apiVersion: string;
  /** The logical input (kinds.ts INPUTS) this resource satisfies. */
  input?: string;
  /** `failed`: not a page could be read; `incomplete`: the list was begun but could not be finished (nothing written). */
  status: 'collected' | 'denied' | 'absent' | 'failed' | 'incomplete';
  count?: number;
  /** The archive entry holding the list. */
  file?: string;
  /** For denied, failed and incomplete: the reason rules show as "not evaluated: …". */
  reason?: string;
  /** The API server's message (denied), or what went wrong (failed). */
  message?: string;
}

export interface BundleManifest {
  format: typeof MANIFEST_FORMAT;
  tool: { name: 'karpdoctor'; version: string };
  collectedAt: string;
  cluster: { context: string; server: string };
  namespace: string | null;
  kinds: ManifestKind[];
  logs: {
    status: 'collected' | 'not collected' | 'not requested';
    detail?: string;
    files: string[];
    /** Logs longer than the limit of the collect (`--log-limit`): the file holds their first `atBytes`. */
    cut?: Array<{ file: string; atBytes: number; reason: string }>;
  };
  redaction: Record<string, unknown>;
  anonymization: { enabled: false } | { enabled: true; algorithm: 'HMAC-SHA256'; keyFingerprint: string; keptNames: string[] };
}

/** When the bundle was collected: the reference time of its scan, as the wall clock is for a live scan. */
function collectedAtFromManifest(value: unknown): string | undefined {
  const m = value as Partial<BundleManifest> | null;
  return m && m.format === MANIFEST_FORMAT && typeof m.collectedAt === 'string' ? m.collectedAt : undefined;
}

/** Inputs (input → reason) a manifest records with one of these statuses; nothing for anything that is not one. */
function inputsFromManifest(value: unknown, statuses: ReadonlyArray<ManifestKind['status']>): Array<[string, string]> {
  const m = value as Partial<BundleManifest> | null;
  if (!m || m.format !== MANIFEST_FORMAT || !Array.isArray(m.kinds)) return [];
  return m.kinds
    .filter((k) => k && statuses.includes(k.status) && typeof k.input === 'string' && typeof k.reason === 'string')
    .map((k) => [k.input!, k.reason!]);
}

/** Logs a manifest records as cut at the collect's limit. */
function cutLogsFromManifest(value: unknown): Array<{ file: string; reason: string }> {
  const m = value as Partial<BundleManifest> | null;
  const cut: unknown = m && m.format === MANIFEST_FORMAT ? m.logs?.cut : undefined;
  if (!Array.isArray(cut)) return [];
  return cut.filter((c): c is { file: string; reason: string } => typeof c?.file === 'string' && typeof c?.reason === 'string');
}

/** Denied inputs (input → reason) of a manifest. */
export function deniedFromManifest(value: unknown): Array<[string, string]> {
  return inputsFromManifest(value, ['denied']);
}

export const bundleManifest: Reader = {
  id: 'bundle-manifest',
  needs: 'name',
  sniff: (s) => (s.name === MANIFEST_FILE ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    let value: unknown;
    try {
      value = JSON.parse(await readAll(chunks));
    } catch (e) {
      sink.skipped.push({ source: file.displayPath, reason: `unreadable karpdoctor manifest: ${(e as Error).message}` });
      return 'skipped';
    }
    for (const [input, reason] of deniedFromManifest(value)) (sink.denied ??= new Map()).set(input, reason);
    for (const [input, reason] of inputsFromManifest(value, ['failed', 'incomplete'])) (sink.incomplete ??= new Map()).set(input, reason);
    // A log the collect cut short is read as what it is: part of the log, said as the live scan said it.
    const dir = file.displayPath.slice(0, file.displayPath.length - MANIFEST_FILE.length);
    for (const c of cutLogsFromManifest(value)) sink.skipped.push({ source: `${dir}${c.file}`, reason: c.reason });
    const collectedAt = collectedAtFromManifest(value);
    if (collectedAt) sink.collectedAt = collectedAt;
    return 'loaded';
  },
};
