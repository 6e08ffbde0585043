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
  status: 'collected' | 'denied' | 'absent' | 'failed';
  count?: number;
  /** The archive entry holding the list. */
  file?: string;
  /** For denied and failed: the reason rules show as "not evaluated: …". */
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
  logs: { status: 'collected' | 'not collected' | 'not requested'; detail?: string; files: string[] };
  redaction: Record<string, unknown>;
  anonymization: { enabled: false } | { enabled: true; algorithm: 'HMAC-SHA256'; keyFingerprint: string; keptNames: string[] };
}

/** When the bundle was collected: the reference time of its scan, as the wall clock is for a live scan. */
function collectedAtFromManifest(value: unknown): string | undefined {
  const m = value as Partial<BundleManifest> | null;
  return m && m.format === MANIFEST_FORMAT && typeof m.collectedAt === 'string' ? m.collectedAt : undefined;
}

/** Denied inputs (input → reason) of a manifest; nothing for anything that is not one. */
export function deniedFromManifest(value: unknown): Array<[string, string]> {
  const m = value as Partial<BundleManifest> | null;
  if (!m || m.format !== MANIFEST_FORMAT || !Array.isArray(m.kinds)) return [];
  return m.kinds
    .filter((k) => k && (k.status === 'denied' || k.status === 'failed') && typeof k.input === 'string' && typeof k.reason === 'string')
    .map((k) => [k.input!, k.reason!]);
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
    const collectedAt = collectedAtFromManifest(value);
    if (collectedAt) sink.collectedAt = collectedAt;
    return 'loaded';
  },
};
