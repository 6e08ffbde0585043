/**
 * Globs as people write them in `.gitignore`-like settings: `*` within one path segment, `**` across segments,
 * `?` one character. A path pattern matches a file, or a directory and everything below it (a trailing `/` is allowed).
 */
export function globToRegExp(glob: string, opts: { paths: boolean } = { paths: true }): RegExp {
  let pattern = glob.trim();
  if (opts.paths) pattern = pattern.replace(/^\.\//, '').replace(/\/$/, '');
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
  return new RegExp(`${anchored}${opts.paths ? '(?:/.*)?' : ''}$`);
}
