import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** The entries of a `collect` bundle by name (ustar headers, pax `path` records), read independently of the loader. */
export function bundleEntries(path: string): Map<string, string> {
  const tar = gunzipSync(readFileSync(path));
  const out = new Map<string, string>();
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
    const size = parseInt(
      tar
        .toString('latin1', at + 124, at + 136)
        .replace(/\0.*$/, '')
        .trim(),
      8,
    );
    const body = tar.toString('utf8', at + 512, at + 512 + size);
    if (String.fromCharCode(tar[at + 156]!) === 'x') longName = /\d+ path=(.*)\n/.exec(body)![1];
    else {
      out.set(longName ?? tar.toString('latin1', at, at + 100).replace(/\0.*$/s, ''), body);
      longName = undefined;
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}
