/**
 * `karpdoctor-manifest.json`, the completeness record of a support bundle: which kinds were collected (how many),
 * denied (403, with the API server's message) or absent (404), whether controller logs came along, and how the
 * bundle was redacted. `scan` reads it back so a denied kind gives the same "not evaluated: no permission to list …"
 * as the live scan did, instead of looking merely absent.
 */

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
export function collectedAtFromManifest(value: unknown): string | undefined {
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

/** The API server URL without its host, which can name the account or cluster: `https://<redacted>.gr7.us-west-2.eks.amazonaws.com`. */
export function redactServer(server: string): string {
  try {
    const url = new URL(server);
    const host = url.hostname;
    const redacted = /^[\d.]+$|^\[?[0-9a-f:]+\]?$/i.test(host) ? '<redacted-ip>' : host.split('.').length > 3 ? `<redacted>.${host.split('.').slice(1).join('.')}` : '<redacted>';
    return `${url.protocol}//${redacted}${url.port ? `:${url.port}` : ''}`;
  } catch {
    return '<redacted>';
  }
}
