/**
 * Input discovery: turns the paths given to `karpdoctor scan` (files, directory trees, archives, `-` for stdin)
 * into a deterministic stream of virtual files, and everything that cannot be read into a SkippedInput.
 */
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { FileSource, MemorySource, READ_AHEAD_LIMIT, StreamReader, describeError, gunzip, isGzip, isInputProblem, type ByteSource } from './archive/bytes.js';
import { isTarHeader, readTar, tarIn, tarInGzip } from './archive/tar.js';
import { isZip, readZip } from './archive/zip.js';
import type { SkippedInput } from '../kube/types.js';
import type { InputFile, WalkOptions } from './types.js';
import { CHART_PACKAGE_SKIP } from './skip-summary.js';

type Item = InputFile | SkippedInput;

const STDIN = '<stdin>';
/** Never Kubernetes input, and large: reported once instead of walked. */
const IGNORED_DIRS = new Set(['.git', 'node_modules']);

export function isSkipped(x: InputFile | SkippedInput): x is SkippedInput {
  return 'reason' in x;
}

/** Files and directories met so far, by device and inode: symlinks and repeated paths never read anything twice,
 *  nor forever. */
interface Walk {
  seen: Map<string, string>;
  /** Directories on the path from the root to where the walk is, to tell a loop from a mere second link. */
  ancestors: Map<string, string>;
  /**
   * The folder being scanned, resolved: a symlink met inside it is followed only when its target is inside too, so a
   * link to `/etc` or to a user's home in a dump or a repository never reads what the user did not ask to scan.
   */
  root?: { given: string; real: string };
  exclude?: WalkOptions['exclude'];
}

/** Yields files and, for anything that cannot be read, a SkippedInput with a clear one-line reason. Never throws for
 *  user-input problems (missing path, permission denied, bad archive); such problems become SkippedInput. */
export async function* walkInputs(paths: string[], opts: WalkOptions = {}): AsyncGenerator<InputFile | SkippedInput> {
  const walk: Walk = { seen: new Map(), ancestors: new Map(), ...(opts.exclude ? { exclude: opts.exclude } : {}) };
  let stdinRead = false;
  for (const typed of paths) {
    if (typed !== '-') {
      const real = await realpath(typed).catch(() => undefined);
      walk.root = real === undefined ? undefined : { given: typed, real };
      yield* visit(typed, null, walk);
    } else if (stdinRead) yield { source: STDIN, reason: 'stdin was already read (- given more than once)' };
    else {
      stdinRead = true;
      yield* readStdin(opts.stdin ?? process.stdin);
    }
  }
}

/**
 * `rel` is the path inside the scanned root, null for a path given on the command line (followed wherever it points:
 * the user named it); `link`: the directory entry is a symbolic link.
 */
async function* visit(path: string, rel: string | null, walk: Walk, link = false): AsyncGenerator<Item> {
  if (link && walk.root) {
    const outside = await leavesRoot(path, walk.root);
    if (outside) {
      yield { source: path, reason: outside };
      return;
    }
  }
  let st: BigIntStats;
  try {
    st = await stat(path, { bigint: true });
  } catch (err) {
    if (!isInputProblem(err)) throw err;
    yield { source: path, reason: await whyUnreachable(path, err) };
    return;
  }
  // Some filesystems report no inode numbers; there we cannot tell, and do not guess.
  const id = st.ino === 0n ? undefined : `${st.dev}:${st.ino}`;
  if (id !== undefined) {
    const loopsTo = walk.ancestors.get(id);
    if (loopsTo !== undefined) {
      yield { source: path, reason: `symlink loop: ${path} points back to ${loopsTo}` };
      return;
    }
    const first = walk.seen.get(id);
    if (first !== undefined) {
      yield { source: path, reason: `already read as ${first} (same ${st.isDirectory() ? 'directory' : 'file'})` };
      return;
    }
    walk.seen.set(id, path);
  }

  if (st.isFile()) {
    yield* readContent(new FileSource(path, Number(st.size)), path, rel ?? basename(path), rel === null);
    return;
  }
  if (!st.isDirectory()) {
    yield { source: path, reason: `not a regular file (${fileType(st)})` };
    return;
  }
  let entries: Array<{ name: string; link: boolean }>;
  try {
    entries = (await readdir(path, { withFileTypes: true }))
      .map((e) => ({ name: e.name, link: e.isSymbolicLink() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)); // code-unit order: the same on every machine and locale
  } catch (err) {
    if (!isInputProblem(err)) throw err;
    yield { source: path, reason: `cannot read directory: ${describeError(err)}` };
    return;
  }
  if (id !== undefined) walk.ancestors.set(id, path);
  try {
    for (const { name, link } of entries) {
      const child = join(path, name);
      if (IGNORED_DIRS.has(name)) yield { source: child, reason: `ignored ${name} directory` };
      else if (walk.exclude?.test(resolve(child))) yield { source: child, reason: walk.exclude.why };
      else yield* visit(child, rel === null ? name : `${rel}/${name}`, walk, link);
    }
  } finally {
    if (id !== undefined) walk.ancestors.delete(id);
  }
}

/** Why a symlink inside the scanned folder is not followed, or undefined when its target is inside too. */
async function leavesRoot(path: string, root: { given: string; real: string }): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return undefined; // broken or looping: stat() reports it with its reason
  }
  const inside = real === root.real || real.startsWith(root.real.endsWith(sep) ? root.real : root.real + sep);
  if (inside) return undefined;
  const target = await readlink(path).catch(() => real);
  return `symlink to ${target} leaves the scanned folder ${root.given}: not followed`;
}

async function whyUnreachable(path: string, err: unknown): Promise<string> {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ELOOP') {
    const target = await readlink(path).catch(() => undefined);
    if (target !== undefined && code === 'ENOENT') return `broken symlink: points to ${target}, which does not exist`;
    if (target !== undefined) return `symlink loop: ${path} -> ${target} never resolves (too many levels of symbolic links)`;
  }
  return describeError(err);
}

function fileType(st: BigIntStats): string {
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  return 'unknown type';
}

async function* readStdin(stream: NodeJS.ReadableStream): AsyncGenerator<Item> {
  const parts: Buffer[] = [];
  try {
    for await (const c of stream) parts.push(typeof c === 'string' ? Buffer.from(c) : c);
  } catch (err) {
    yield { source: STDIN, reason: `cannot read stdin: ${describeError(err)}` };
    return;
  }
  yield* readContent(new MemorySource(parts), STDIN, 'stdin', true);
}

/** One file's bytes: an archive (by magic bytes, else by name), a gzip'd file, or a plain file. */
async function* readContent(src: ByteSource, display: string, rel: string, direct: boolean): AsyncGenerator<Item> {
  const name = rel.toLowerCase();
  try {
    // Zero-byte files are yielded as they are, whatever their name: the caller reports them as empty.
    const head = src.size === 0 ? Buffer.alloc(0) : await src.read(0, 512);
    if (isGzip(head)) yield* gzipped(src, display, rel, direct);
    else if (isZip(head)) yield* readZip(src, display);
    else if (isTarHeader(head)) yield* readTar(tarIn(src), display);
    // The name alone decides only now, so that the report says why a would-be archive could not be read.
    else if (src.size > 0 && name.endsWith('.zip')) yield* readZip(src, display);
    else if (src.size > 0 && name.endsWith('.tar')) yield* readTar(tarIn(src), display);
    else if (src.size > 0 && /\.(tgz|gz)$/.test(name)) yield { source: display, reason: 'not gzip data, although the name says so' };
    else {
      await src.close(); // chunks() opens the file itself; no need to hold a descriptor while the caller works
      const fsPath = src instanceof FileSource ? { fsPath: src.path } : {};
      yield { displayPath: display, relPath: rel, size: src.size, ...fsPath, ...(direct ? { direct } : {}), chunks: () => src.stream(0, src.size) };
    }
  } catch (err) {
    if (!isInputProblem(err)) throw err;
    yield { source: display, reason: describeError(err) };
  } finally {
    await src.close();
  }
}

function tarEntryName(header: Buffer): string {
  const end = header.indexOf(0);
  return header.subarray(0, end < 0 || end > 100 ? 100 : end).toString('utf8');
}

async function* gzipped(src: ByteSource, display: string, rel: string, direct: boolean): AsyncGenerator<Item> {
  const inflate = () => gunzip(src.stream(0, src.size));
  let tar = /\.(tgz|tar\.gz)$/i.test(rel);
  if (!tar || !direct) {
    const sniff = new StreamReader(inflate());
    try {
      const header = await sniff.read(512);
      tar ||= isTarHeader(header);
      // A chart vendored by `helm dependency build` (`charts/karpenter-1.2.1.tgz`, `<chart>/Chart.yaml` first): another
      // project's package, not this repository's state. Opened only when given explicitly.
      if (!direct && isTarHeader(header) && /^[^/]+\/Chart\.yaml$/.test(tarEntryName(header))) {
        yield { source: display, reason: CHART_PACKAGE_SKIP };
        return;
      }
    } finally {
      await sniff.close();
    }
  }
  if (tar) {
    yield* readTar(tarInGzip(inflate), display);
    return;
  }
  // A single compressed file: decompress once to learn its size, keeping the bytes when they are few.
  let size = 0;
  let kept: Buffer[] | undefined = [];
  for await (const c of inflate()) {
    size += c.length;
    kept?.push(c);
    if (size > READ_AHEAD_LIMIT) kept = undefined;
  }
  const data = kept;
  const chunks = data
    ? async function* () {
        yield* data;
      }
    : inflate;
  yield { displayPath: display, relPath: rel.replace(/\.gz$/i, ''), size, ...(direct ? { direct } : {}), chunks };
}
