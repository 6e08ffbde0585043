/**
 * Globs as people write them in `.gitignore`-like settings: `*` within one path segment, `**` across segments,
 * `?` one character; a pattern ending in `/` matches a directory and everything below it.
 */
export function globToRegExp(glob: string, opts: { paths: boolean } = { paths: true }): RegExp {
  let pattern = glob.trim();
  let dirOnly = false;
  if (opts.paths) {
    pattern = pattern.replace(/^\.\//, '');
    if (pattern.endsWith('/')) {
      dirOnly = true;
      pattern = pattern.slice(0, -1);
    }
  }
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*' && opts.paths) {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += opts.paths ? '[^/]*' : '.*';
    else if (c === '?') re += opts.paths ? '[^/]' : '.';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A path pattern without a slash matches at any depth, as in .gitignore.
  const anchored = !opts.paths || pattern.includes('/') ? `^${re}` : `^(?:.*/)?${re}`;
  return new RegExp(`${anchored}${opts.paths ? (dirOnly ? '/.*' : '(?:/.*)?') : ''}$`);
}
