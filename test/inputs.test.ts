import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkippedInput } from '../src/kube/types.js';
import type { InputFile, WalkOptions } from '../src/loaders/types.js';
import { isSkipped, walkInputs } from '../src/loaders/inputs.js';

const MiB = 1024 * 1024;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'karpdoctor-inputs-'));
});

afterAll(async () => {
  // chmod 000 directories cannot be removed by a non-root user until they are readable again.
  await chmod(join(root, 'perm', 'locked'), 0o755).catch(() => {});
  await rm(root, { recursive: true, force: true });
});

interface Walked {
  files: InputFile[];
  skipped: SkippedInput[];
  /** Everything in yield order: display paths of files, `skip:<source>` for skipped inputs. */
  order: string[];
}

async function walk(paths: string[], opts?: WalkOptions): Promise<Walked> {
  const out: Walked = { files: [], skipped: [], order: [] };
  for await (const x of walkInputs(paths, opts)) {
    if (isSkipped(x)) {
      out.skipped.push(x);
      out.order.push(`skip:${x.source}`);
    } else {
      out.files.push(x);
      out.order.push(x.displayPath);
    }
  }
  return out;
}

async function bytes(f: InputFile): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of f.chunks()) parts.push(c);
  return Buffer.concat(parts);
}

async function text(f: InputFile): Promise<string> {
  return (await bytes(f)).toString('utf8');
}

function file(w: Walked, displayPath: string): InputFile {
  const f = w.files.find((x) => x.displayPath === displayPath);
  if (!f) throw new Error(`no file ${displayPath} in ${w.order.join(', ')}`);
  return f;
}

function reason(w: Walked, source: string): string {
  const s = w.skipped.find((x) => x.source === source);
  if (!s) throw new Error(`no skipped ${source} in ${w.order.join(', ')}`);
  return s.reason;
}

async function put(path: string, content: string | Buffer): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  return path;
}

function python(script: string, ...args: string[]): Buffer {
  return execFileSync('python3', ['-c', script, ...args]);
}

describe('directories and files', () => {
  it('walks a tree recursively in name order, with display and relative paths, ignoring .git and node_modules', async () => {
    const dump = join(root, 'dump');
    await put(join(dump, 'b.yaml'), 'b');
    await put(join(dump, 'A.yaml'), 'A');
    await put(join(dump, 'a', 'z.json'), '{"z":1}');
    await put(join(dump, 'a', 'b', 'c.txt'), 'c');
    await put(join(dump, 'empty.json'), '');
    await put(join(dump, '.git', 'config'), '[core]');
    await put(join(dump, 'node_modules', 'x', 'index.js'), 'x');

    const w = await walk([`${dump}/`]);
    expect(w.order).toEqual([
      `skip:${join(dump, '.git')}`,
      join(dump, 'A.yaml'),
      join(dump, 'a', 'b', 'c.txt'),
      join(dump, 'a', 'z.json'),
      join(dump, 'b.yaml'),
      join(dump, 'empty.json'),
      `skip:${join(dump, 'node_modules')}`,
    ]);
    expect(w.files.map((f) => f.relPath)).toEqual(['A.yaml', 'a/b/c.txt', 'a/z.json', 'b.yaml', 'empty.json']);
    expect(reason(w, join(dump, '.git'))).toBe('ignored .git directory');
    expect(reason(w, join(dump, 'node_modules'))).toBe('ignored node_modules directory');

    const z = file(w, join(dump, 'a', 'z.json'));
    expect(z.size).toBe(7);
    expect(await text(z)).toBe('{"z":1}');
    expect(await text(z)).toBe('{"z":1}'); // chunks() can be called again

    const empty = file(w, join(dump, 'empty.json'));
    expect(empty.size).toBe(0);
    expect(await bytes(empty)).toHaveLength(0);
  });

  it('gives a single file its path as typed and its basename as relPath', async () => {
    const path = await put(join(root, 'single', 'nodes.yaml'), 'kind: NodeList\n');
    const w = await walk([path]);
    expect(w.skipped).toEqual([]);
    expect(w.files).toHaveLength(1);
    expect(w.files[0]!.displayPath).toBe(path);
    expect(w.files[0]!.relPath).toBe('nodes.yaml');
    expect(await text(w.files[0]!)).toBe('kind: NodeList\n');
  });

  it('streams a big file in chunks of at most 4 MiB', async () => {
    const content = Buffer.alloc(9 * MiB + 5, 'a');
    content.write('END', content.length - 3);
    const path = await put(join(root, 'big', 'pods.json'), content);
    const w = await walk([path]);
    const chunks: Buffer[] = [];
    for await (const c of w.files[0]!.chunks()) chunks.push(c);
    expect(chunks.map((c) => c.length)).toEqual([4 * MiB, 4 * MiB, MiB + 5]);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
  });

  it('reports a missing path and goes on with the next one', async () => {
    const ok = await put(join(root, 'missing', 'ok.yaml'), 'ok');
    const missing = join(root, 'missing', 'nope.yaml');
    const w = await walk([missing, ok]);
    expect(w.order).toEqual([`skip:${missing}`, ok]);
    expect(reason(w, missing)).toBe('no such file or directory');
  });

  it('follows symlinks inside the scanned folder but reports loops, broken links and second visits instead of hanging', async () => {
    const links = join(root, 'links');
    await put(join(links, 'real', 'x.yaml'), 'x');
    await put(join(links, 'shared.yaml'), 'shared');
    await symlink('..', join(links, 'real', 'loop'));
    await symlink('real', join(links, 'alias'));
    await symlink('nowhere.yaml', join(links, 'broken'));
    await symlink('shared.yaml', join(links, 'file-link.yaml'));
    await symlink('self-b', join(links, 'self-a'));
    await symlink('self-a', join(links, 'self-b'));

    const w = await walk([links]);
    expect(w.order).toEqual([
      `skip:${join(links, 'alias', 'loop')}`,
      join(links, 'alias', 'x.yaml'),
      `skip:${join(links, 'broken')}`,
      join(links, 'file-link.yaml'),
      `skip:${join(links, 'real')}`,
      `skip:${join(links, 'self-a')}`,
      `skip:${join(links, 'self-b')}`,
      `skip:${join(links, 'shared.yaml')}`,
    ]);
    expect(reason(w, join(links, 'alias', 'loop'))).toBe(`symlink loop: ${join(links, 'alias', 'loop')} points back to ${links}`);
    expect(reason(w, join(links, 'broken'))).toBe('broken symlink: points to nowhere.yaml, which does not exist');
    expect(reason(w, join(links, 'real'))).toBe(`already read as ${join(links, 'alias')} (same directory)`);
    expect(reason(w, join(links, 'self-a'))).toMatch(/^symlink loop: .*self-a -> self-b never resolves/);
    expect(await text(file(w, join(links, 'file-link.yaml')))).toBe('shared');
    expect(file(w, join(links, 'alias', 'x.yaml')).relPath).toBe('alias/x.yaml');
  });

  it('never follows a symlink out of the scanned folder, and names each one in the skip list', async () => {
    const outside = join(root, 'not-scanned');
    await put(join(outside, 'shadow'), 'root:$6$planted:19000:0:99999:7:::');
    await put(join(outside, 'conf', 'host.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: planted\n');
    const repo = join(root, 'escaping-repo');
    await put(join(repo, 'inside', 'pool.yaml'), 'pool');
    await symlink(outside, join(repo, 'etc'));
    await symlink(join('..', 'not-scanned', 'shadow'), join(repo, 'shadow.yaml'));
    await symlink('etc', join(repo, 'via-inside-link'));
    await symlink(join('..', '..', 'not-scanned', 'conf'), join(repo, 'inside', 'conf'));
    await symlink('inside', join(repo, 'inside-alias'));

    const w = await walk([repo]);
    expect(w.files.map((f) => f.relPath)).toEqual(['inside/pool.yaml']);
    expect(w.skipped).toEqual([
      { source: join(repo, 'etc'), reason: `symlink to ${outside} leaves the scanned folder ${repo}: not followed` },
      { source: join(repo, 'inside', 'conf'), reason: `symlink to ../../not-scanned/conf leaves the scanned folder ${repo}: not followed` },
      { source: join(repo, 'inside-alias'), reason: `already read as ${join(repo, 'inside')} (same directory)` },
      { source: join(repo, 'shadow.yaml'), reason: `symlink to ../not-scanned/shadow leaves the scanned folder ${repo}: not followed` },
      { source: join(repo, 'via-inside-link'), reason: `symlink to etc leaves the scanned folder ${repo}: not followed` },
    ]);
    // What the user names on the command line is read wherever it points.
    const direct = await walk([join(repo, 'etc')]);
    expect(direct.files.map((f) => f.relPath)).toEqual(['conf/host.yaml', 'shadow']);
  });

  it('reports the same file given twice only once', async () => {
    const path = await put(join(root, 'twice', 'a.yaml'), 'a');
    const w = await walk([path, join(root, 'twice')]);
    expect(w.files.map((f) => f.displayPath)).toEqual([path]);
    expect(reason(w, join(root, 'twice', 'a.yaml'))).toBe(`already read as ${path} (same file)`);
  });

  it('reports unreadable files and directories by path', async () => {
    const dir = join(root, 'perm');
    const secret = await put(join(dir, 'secret.yaml'), 'secret');
    await put(join(dir, 'locked', 'inside.yaml'), 'inside');
    await chmod(secret, 0o000);
    await chmod(join(dir, 'locked'), 0o000);
    const w = await walk([dir]);
    if (process.getuid?.() === 0) {
      // root reads through chmod 000: nothing to deny.
      expect(w.files.map((f) => f.relPath)).toEqual(['locked/inside.yaml', 'secret.yaml']);
    } else {
      expect(w.files).toEqual([]);
      expect(reason(w, join(dir, 'locked'))).toBe('cannot read directory: permission denied');
      expect(reason(w, secret)).toBe('cannot read file: permission denied');
    }
  });

  it('skips FIFOs without opening them', async () => {
    const dir = join(root, 'fifo');
    await mkdir(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await put(join(dir, 'z.yaml'), 'z');
    const w = await walk([dir]);
    expect(w.order).toEqual([`skip:${join(dir, 'pipe')}`, join(dir, 'z.yaml')]);
    expect(reason(w, join(dir, 'pipe'))).toBe('not a regular file (FIFO)');
  });
});

describe('tar archives', () => {
  const longDir = `${'d'.repeat(60)}/${'e'.repeat(60)}`;
  const longName = `${longDir}/${'f'.repeat(90)}.yaml`;
  let src: string;

  beforeAll(async () => {
    src = join(root, 'tar-src');
    await put(join(src, 'nodes.json'), '{"kind":"NodeList"}');
    await put(join(src, 'kube-system', 'pods.json'), '{"kind":"PodList"}');
    await put(join(src, longName), 'long');
  });

  function makeTar(out: string, ...flags: string[]): string {
    // Explicit members (and --no-recursion) fix the order; the directory entry must not become a file.
    execFileSync('tar', [...flags, '-f', out, '--no-recursion', '-C', src, 'nodes.json', 'kube-system', 'kube-system/pods.json', longName]);
    return out;
  }

  async function expectMembers(archive: string): Promise<void> {
    const w = await walk([archive]);
    expect(w.skipped).toEqual([]);
    expect(w.order).toEqual([`${archive}!nodes.json`, `${archive}!kube-system/pods.json`, `${archive}!${longName}`]);
    expect(w.files.map((f) => f.relPath)).toEqual(['nodes.json', 'kube-system/pods.json', longName]);
    expect(await text(w.files[1]!)).toBe('{"kind":"PodList"}');
    expect(w.files[1]!.size).toBe(18);
    expect(await text(w.files[2]!)).toBe('long');
  }

  it.each(['gnu', 'pax', 'ustar'])('reads a %s tar with long names', async (format) => {
    await expectMembers(makeTar(join(root, `bundle-${format}.tar`), '-c', `--format=${format}`));
  });

  it('reads a .tar.gz, a .tgz, and a gzip tar recognised by magic bytes only', async () => {
    const tgz = makeTar(join(root, 'bundle.tar.gz'), '-cz');
    await expectMembers(tgz);
    await copyFile(tgz, join(root, 'bundle.tgz'));
    await expectMembers(join(root, 'bundle.tgz'));
    await copyFile(tgz, join(root, 'bundle.bin'));
    await expectMembers(join(root, 'bundle.bin'));
  });

  it('reads an archive found inside a directory, relPath relative to the archive', async () => {
    const dir = join(root, 'with-archive');
    await mkdir(dir, { recursive: true });
    makeTar(join(dir, 'must-gather.tgz'), '-cz');
    await put(join(dir, 'a.yaml'), 'a');
    const w = await walk([dir]);
    expect(w.order.slice(0, 2)).toEqual([join(dir, 'a.yaml'), `${join(dir, 'must-gather.tgz')}!nodes.json`]);
    expect(w.files[2]!.relPath).toBe('kube-system/pods.json');
  });

  it('refuses entries that escape the archive, links and devices, and keeps the rest', async () => {
    const evil = join(root, 'evil.tar');
    python(
      `
import io, sys, tarfile
with tarfile.open(sys.argv[1], 'w', format=tarfile.GNU_FORMAT) as t:
    def add(name, data=b'', kind=tarfile.REGTYPE, link=''):
        ti = tarfile.TarInfo(name); ti.type = kind; ti.linkname = link; ti.size = len(data)
        t.addfile(ti, io.BytesIO(data) if data else None)
    add('ok.yaml', b'kind: ok')
    add('../evil.yaml', b'evil')
    add('/etc/passwd', b'root:x:0:0')
    add('a/../../up.yaml', b'up')
    add('C:/windows.yaml', b'win')
    add('./a/./b/../fine.yaml', b'fine')
    add('somedir/', kind=tarfile.DIRTYPE)
    add('link.yaml', kind=tarfile.SYMTYPE, link='/etc/shadow')
    add('hard.yaml', kind=tarfile.LNKTYPE, link='ok.yaml')
    add('pipe', kind=tarfile.FIFOTYPE)
    add('last.yaml', b'last')
`,
      evil,
    );
    const w = await walk([evil]);
    expect(w.order).toEqual([
      `${evil}!ok.yaml`,
      `skip:${evil}!../evil.yaml`,
      `skip:${evil}!/etc/passwd`,
      `skip:${evil}!a/../../up.yaml`,
      `skip:${evil}!C:/windows.yaml`,
      `${evil}!a/fine.yaml`,
      `skip:${evil}!link.yaml`,
      `skip:${evil}!hard.yaml`,
      `skip:${evil}!pipe`,
      `${evil}!last.yaml`,
    ]);
    expect(reason(w, `${evil}!../evil.yaml`)).toBe('archive entry escapes the archive: ../evil.yaml');
    expect(reason(w, `${evil}!/etc/passwd`)).toBe('archive entry escapes the archive: /etc/passwd');
    expect(reason(w, `${evil}!a/../../up.yaml`)).toBe('archive entry escapes the archive: a/../../up.yaml');
    expect(reason(w, `${evil}!C:/windows.yaml`)).toBe('archive entry escapes the archive: C:/windows.yaml');
    expect(reason(w, `${evil}!link.yaml`)).toBe('symbolic link in archive, not followed (-> /etc/shadow)');
    expect(reason(w, `${evil}!hard.yaml`)).toBe('hard link in archive, not followed (-> ok.yaml)');
    expect(reason(w, `${evil}!pipe`)).toBe('not a regular file (FIFO)');
    expect(file(w, `${evil}!a/fine.yaml`).relPath).toBe('a/fine.yaml');
    expect(await text(file(w, `${evil}!last.yaml`))).toBe('last');
  });

  it('reports a truncated .tar.gz after yielding the entries before the damage', async () => {
    const dir = join(root, 'trunc-src');
    await put(join(dir, 'a.txt'), 'alpha');
    await put(join(dir, 'b.txt'), 'beta');
    await put(join(dir, 'c.bin'), randomBytes(2 * MiB)); // incompressible: the cut lands inside it
    await put(join(dir, 'd.txt'), 'delta');
    const tgz = join(root, 'trunc.tar.gz');
    execFileSync('tar', ['-czf', tgz, '-C', dir, 'a.txt', 'b.txt', 'c.bin', 'd.txt']);
    await truncate(tgz, MiB);
    const w = await walk([tgz]);
    expect(w.order).toEqual([`${tgz}!a.txt`, `${tgz}!b.txt`, `skip:${tgz}`]);
    expect(await text(w.files[1]!)).toBe('beta');
    expect(reason(w, tgz)).toBe('truncated gzip data: unexpected end of file');

    const tar = join(root, 'trunc.tar');
    execFileSync('tar', ['-cf', tar, '-C', dir, 'a.txt', 'b.txt', 'c.bin', 'd.txt']);
    await truncate(tar, MiB);
    const t = await walk([tar]);
    expect(t.order).toEqual([`${tar}!a.txt`, `${tar}!b.txt`, `skip:${tar}`]);
    expect(reason(t, tar)).toMatch(/^truncated archive: entry c\.bin is cut off after \d+ of 2097152 bytes$/);
  });

  it('reports files whose name promises an archive that they do not contain', async () => {
    const fakeTar = await put(join(root, 'fake', 'x.tar'), 'kind: Pod\n'.repeat(100));
    const fakeTgz = await put(join(root, 'fake', 'y.tgz'), 'kind: Pod\n');
    const w = await walk([fakeTar, fakeTgz]);
    expect(w.files).toEqual([]);
    expect(reason(w, fakeTar)).toBe('corrupt archive: invalid tar header at byte 0');
    expect(reason(w, fakeTgz)).toBe('not gzip data, although the name says so');
  });

  it('streams an entry larger than what is kept in memory, decompressing it again on demand', async () => {
    const dir = join(root, 'huge-src');
    const huge = Buffer.alloc(65 * MiB);
    huge.write('END', huge.length - 3);
    await put(join(dir, 'pods.json'), huge);
    await put(join(dir, 'after.yaml'), 'after');
    const tgz = join(root, 'huge.tgz');
    execFileSync('tar', ['-czf', tgz, '-C', dir, 'pods.json', 'after.yaml']);
    const w = await walk([tgz]);
    expect(w.order).toEqual([`${tgz}!pods.json`, `${tgz}!after.yaml`]);
    const pods = w.files[0]!;
    expect(pods.size).toBe(65 * MiB);
    for (let pass = 0; pass < 2; pass++) {
      let total = 0;
      let largest = 0;
      let last: Buffer = Buffer.alloc(0);
      for await (const c of pods.chunks()) {
        total += c.length;
        largest = Math.max(largest, c.length);
        last = c;
      }
      expect(total).toBe(65 * MiB);
      expect(largest).toBeLessThanOrEqual(4 * MiB);
      expect(last.subarray(-3).toString()).toBe('END');
    }
    expect(await text(w.files[1]!)).toBe('after');
  }, 60_000);

  it('stops cleanly when the consumer stops early', async () => {
    const tgz = join(root, 'bundle.tar.gz');
    const seen: string[] = [];
    for await (const x of walkInputs([tgz])) {
      if (isSkipped(x)) continue;
      for await (const c of x.chunks()) {
        seen.push(c.toString());
        break;
      }
      break;
    }
    expect(seen).toEqual(['{"kind":"NodeList"}']);
  });
});

describe('gzip files', () => {
  it('reads a plain .gz as the file inside, with .gz stripped from relPath', async () => {
    const content = '{"kind":"PodList","items":[]}';
    const path = await put(join(root, 'gz', 'pods.json.gz'), gzipSync(content));
    const w = await walk([path]);
    expect(w.files).toHaveLength(1);
    expect(w.files[0]!.displayPath).toBe(path);
    expect(w.files[0]!.relPath).toBe('pods.json');
    expect(w.files[0]!.size).toBe(content.length);
    expect(await text(w.files[0]!)).toBe(content);
  });

  it('reports a corrupt .gz', async () => {
    const gz = gzipSync('kind: Pod\n'.repeat(1000));
    const path = await put(join(root, 'gz', 'bad.yaml.gz'), gz.subarray(0, gz.length >> 1));
    const w = await walk([path]);
    expect(w.files).toEqual([]);
    expect(reason(w, path)).toBe('truncated gzip data: unexpected end of file');
  });
});

describe('zip archives', () => {
  const big = Array.from({ length: 500_000 }, (_, i) => `{"n": ${i}}\n`).join(''); // ~6 MiB
  let zip: string;

  beforeAll(async () => {
    const bigPath = await put(join(root, 'zip-src', 'big.json'), big);
    zip = join(root, 'bundle.zip');
    python(
      `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('dir/', '')
    z.writestr('stored.txt', 'stored content')
    z.write(sys.argv[2], 'kube-system/big.json', compress_type=zipfile.ZIP_DEFLATED)
    link = zipfile.ZipInfo('link.yaml'); link.create_system = 3; link.external_attr = 0o120777 << 16
    z.writestr(link, '/etc/shadow')
    z.writestr('../escape.yaml', 'x')
    z.writestr('secret.txt', 'not really encrypted')
    z.writestr('last.yaml', 'last', compress_type=zipfile.ZIP_DEFLATED)
`,
      zip,
      bigPath,
    );
    // zipfile cannot encrypt: mark the entry encrypted in its local and central headers.
    const buf = await readFile(zip);
    for (let at = buf.indexOf('secret.txt'); at >= 0; at = buf.indexOf('secret.txt', at + 1)) {
      const header = buf.readUInt32LE(at - 30) === 0x04034b50 ? at - 30 + 6 : at - 46 + 8;
      buf.writeUInt16LE(buf.readUInt16LE(header) | 1, header);
    }
    await writeFile(zip, buf);
  });

  it('reads stored and deflated entries in archive order, and refuses directories, links, escapes and encryption', async () => {
    const w = await walk([zip]);
    expect(w.order).toEqual([
      `${zip}!stored.txt`,
      `${zip}!kube-system/big.json`,
      `skip:${zip}!link.yaml`,
      `skip:${zip}!../escape.yaml`,
      `skip:${zip}!secret.txt`,
      `${zip}!last.yaml`,
    ]);
    expect(reason(w, `${zip}!link.yaml`)).toBe('symbolic link in archive, not followed');
    expect(reason(w, `${zip}!../escape.yaml`)).toBe('archive entry escapes the archive: ../escape.yaml');
    expect(reason(w, `${zip}!secret.txt`)).toBe('encrypted zip entry, not supported');
    expect(await text(file(w, `${zip}!stored.txt`))).toBe('stored content');
    expect(await text(file(w, `${zip}!last.yaml`))).toBe('last');
  });

  it('inflates a deflated entry bigger than 4 MiB in bounded chunks, more than once', async () => {
    const w = await walk([zip]);
    const f = file(w, `${zip}!kube-system/big.json`);
    expect(f.relPath).toBe('kube-system/big.json');
    expect(f.size).toBe(big.length);
    expect(big.length).toBeGreaterThan(4 * MiB);
    for (let pass = 0; pass < 2; pass++) {
      const chunks: Buffer[] = [];
      for await (const c of f.chunks()) chunks.push(c);
      expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(4 * MiB);
      expect(Buffer.concat(chunks).toString()).toBe(big);
    }
  });

  it('reads entries written with data descriptors (streamed zip)', async () => {
    const streamed = join(root, 'streamed.zip');
    await writeFile(
      streamed,
      python(`
import sys, zipfile
with zipfile.ZipFile(sys.stdout.buffer, 'w', compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr('a.yaml', 'kind: A\\n' * 100)
    z.writestr('b.yaml', 'kind: B\\n')
`),
    );
    expect((await readFile(streamed)).readUInt16LE(6) & 8).toBe(8); // the data-descriptor flag is really set
    const w = await walk([streamed]);
    expect(w.order).toEqual([`${streamed}!a.yaml`, `${streamed}!b.yaml`]);
    expect(await text(w.files[0]!)).toBe('kind: A\n'.repeat(100));
  });

  it('reads zip64 sizes and offsets', async () => {
    const content = Buffer.from('kind: Node\n');
    const path = join(root, 'zip64.zip');
    await writeFile(path, zip64Stored('nodes.yaml', content));
    const w = await walk([path]);
    expect(w.skipped).toEqual([]);
    expect(w.files.map((f) => [f.relPath, f.size])).toEqual([['nodes.yaml', content.length]]);
    expect(await text(w.files[0]!)).toBe('kind: Node\n');
  });

  it('reports a truncated zip after the entries that can still be found', async () => {
    const path = join(root, 'truncated.zip');
    const buf = await readFile(zip);
    await writeFile(path, buf.subarray(0, buf.indexOf('kube-system/big.json') + 4096));
    const w = await walk([path]);
    expect(w.order).toEqual([`${path}!stored.txt`, `skip:${path}`]);
    expect(reason(w, path)).toBe('corrupt or truncated zip archive: no end-of-central-directory record');
  });

  it('reports a corrupt deflate stream when the entry is read', async () => {
    const path = join(root, 'corrupt.zip');
    const buf = await readFile(zip);
    const at = buf.indexOf('kube-system/big.json') + 'kube-system/big.json'.length + 1000;
    buf.fill(0xff, at, at + 64);
    await writeFile(path, buf);
    const w = await walk([path]);
    await expect(bytes(file(w, `${path}!kube-system/big.json`))).rejects.toThrow(/^corrupt zip entry: /);
  });
});

describe('stdin', () => {
  it('reads stdin as one file', async () => {
    const w = await walk(['-'], { stdin: Readable.from([Buffer.from('kind: '), Buffer.from('Pod\n')]) });
    expect(w.files).toHaveLength(1);
    expect(w.files[0]!.displayPath).toBe('<stdin>');
    expect(w.files[0]!.relPath).toBe('stdin');
    expect(w.files[0]!.size).toBe(10);
    expect(await text(w.files[0]!)).toBe('kind: Pod\n');
    expect(await text(w.files[0]!)).toBe('kind: Pod\n');
  });

  it('accepts string chunks and reports - given twice', async () => {
    const w = await walk(['-', '-'], { stdin: Readable.from(['kind: ', 'Node\n']) });
    expect(w.order).toEqual(['<stdin>', 'skip:<stdin>']);
    expect(await text(w.files[0]!)).toBe('kind: Node\n');
    expect(w.skipped[0]!.reason).toBe('stdin was already read (- given more than once)');
  });

  it('reads a tar.gz and a zip piped to stdin as archives', async () => {
    const tgz = await readFile(join(root, 'bundle.tar.gz'));
    // Small pieces, so entries and headers straddle chunk boundaries.
    const pieces = Array.from({ length: Math.ceil(tgz.length / 100) }, (_, i) => tgz.subarray(i * 100, i * 100 + 100));
    const w = await walk(['-'], { stdin: Readable.from(pieces) });
    expect(w.order.slice(0, 2)).toEqual(['<stdin>!nodes.json', '<stdin>!kube-system/pods.json']);
    expect(w.files[1]!.relPath).toBe('kube-system/pods.json');
    expect(await text(w.files[1]!)).toBe('{"kind":"PodList"}');

    const z = await walk(['-'], { stdin: Readable.from([await readFile(join(root, 'bundle.zip'))]) });
    expect(z.files.map((f) => f.displayPath)).toEqual(['<stdin>!stored.txt', '<stdin>!kube-system/big.json', '<stdin>!last.yaml']);
    expect(await text(z.files[2]!)).toBe('last');
  });

  it('reports a stdin that fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }));
      },
    });
    const w = await walk(['-'], { stdin: failing });
    expect(w.order).toEqual(['skip:<stdin>']);
    expect(w.skipped[0]!.reason).toBe('cannot read stdin: EIO: i/o error');
  });
});

/** One stored entry with every size and offset in zip64 fields (Python writes these only past 4 GiB). */
function zip64Stored(name: string, data: Buffer): Buffer {
  const n = Buffer.from(name);
  const size = BigInt(data.length);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(45, 4);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(0xffffffff, 18);
  local.writeUInt32LE(0xffffffff, 22);
  local.writeUInt16LE(n.length, 26);
  local.writeUInt16LE(20, 28);
  const localExtra = Buffer.alloc(20);
  localExtra.writeUInt16LE(1, 0);
  localExtra.writeUInt16LE(16, 2);
  localExtra.writeBigUInt64LE(size, 4);
  localExtra.writeBigUInt64LE(size, 12);
  const entry = Buffer.concat([local, n, localExtra, data]);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(45, 4);
  central.writeUInt16LE(45, 6);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(0xffffffff, 20);
  central.writeUInt32LE(0xffffffff, 24);
  central.writeUInt16LE(n.length, 28);
  central.writeUInt16LE(28, 30);
  central.writeUInt32LE(0xffffffff, 42);
  const centralExtra = Buffer.alloc(28);
  centralExtra.writeUInt16LE(1, 0);
  centralExtra.writeUInt16LE(24, 2);
  centralExtra.writeBigUInt64LE(size, 4);
  centralExtra.writeBigUInt64LE(size, 12);
  centralExtra.writeBigUInt64LE(0n, 20);
  const cd = Buffer.concat([central, n, centralExtra]);

  const end64 = Buffer.alloc(56);
  end64.writeUInt32LE(0x06064b50, 0);
  end64.writeBigUInt64LE(44n, 4);
  end64.writeUInt16LE(45, 12);
  end64.writeUInt16LE(45, 14);
  end64.writeBigUInt64LE(1n, 24);
  end64.writeBigUInt64LE(1n, 32);
  end64.writeBigUInt64LE(BigInt(cd.length), 40);
  end64.writeBigUInt64LE(BigInt(entry.length), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(entry.length + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([entry, cd, end64, locator, end]);
}
