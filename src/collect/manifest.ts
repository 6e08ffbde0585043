/**
 * The write side of a support bundle's manifest (its format and reader: loaders/readers/bundle-manifest.ts).
 * The API server URL without its host, which can name the account or cluster: `https://<redacted>.gr7.us-west-2.eks.amazonaws.com`.
 */
export function redactServer(server: string): string {
  try {
    const url = new URL(server);
    const host = url.hostname;
    const redacted = /^[\d.]+$|^\[?[0-9a-f:]+\]?$/i.test(host)
      ? '<redacted-ip>'
      : host.split('.').length > 3
        ? `<redacted>.${host.split('.').slice(1).join('.')}`
        : '<redacted>';
    return `${url.protocol}//${redacted}${url.port ? `:${url.port}` : ''}`;
  } catch {
    return '<redacted>';
  }
}
