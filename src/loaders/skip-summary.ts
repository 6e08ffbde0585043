/**
 * Keeping the skip list short enough to read: files that are plainly not manifests (Makefiles, scripts, Terraform
 * without Kubernetes resources, images…) are counted in one line, packaged charts found in a directory in another,
 * and a file that fails the same way many times (every item of a list, every document) is named once.
 */
import type { SkippedInput } from '../kube/types.js';

/** A `.tgz` met while walking a directory: a packaged Helm chart (`charts/karpenter-1.2.1.tgz`), not opened. */
export const CHART_PACKAGE_SKIP = 'packaged Helm chart (.tgz) inside a scanned directory: not opened';

/** Which sort of non-manifest a file is, by its name alone; undefined for anything that may hold objects or logs. */
export function notManifestKind(name: string): string | undefined {
  if (/^(GNU)?[Mm]akefile$|\.mk$/.test(name)) return 'Makefile';
  if (/^(Dockerfile|Containerfile)(\..*)?$|\.(dockerfile|containerfile)$|^\.dockerignore$/i.test(name)) return 'Dockerfile';
  if (/\.(sh|bash|zsh|ps1|py|rb|go|js|mjs|cjs|ts|java|groovy|pl|lua)$|^Jenkinsfile$|^Tiltfile$/.test(name)) return 'script or source file';
  if (/\.(tfvars|hcl|tf\.json|tfstate(\.backup)?)$|^\.terraform\.lock\.hcl$/.test(name)) return 'other Terraform file';
  if (/\.tftpl$/.test(name)) return 'Terraform template (templatefile)';
  if (/\.(hbs|handlebars)$/.test(name)) return 'Handlebars template';
  if (/\.(j2|jinja2?)$/.test(name)) return 'Jinja template';
  if (/^(OWNERS_ALIASES|SECURITY_CONTACTS|MAINTAINERS)$/.test(name)) return 'ownership file';
  return undefined;
}

/**
 * Which sort of non-manifest a file is by its first bytes: a script (`#!` line) or a MIME multipart document (EC2
 * user data written as MIME); undefined for anything else.
 */
export function notManifestContent(sample: string): string | undefined {
  if (sample.startsWith('#!')) return 'script or source file';
  if (/^(MIME-Version:\s*1\.0|Content-Type:\s*multipart\/)/im.test(sample.slice(0, 512))) return 'MIME multipart document';
  return undefined;
}

/** How many files of each sort a scan did not read by design, for the one line of a directory with nothing to judge. */
export function nothingToJudge(skipped: readonly SkippedInput[], notRead: ReadonlyMap<string, number>): string | undefined {
  if (skipped.some(isUnreadableInput)) return undefined;
  const counts = new Map(notRead);
  for (const s of skipped) {
    const sort = perFileSort(s.reason);
    if (sort) counts.set(sort, (counts.get(sort) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (!total) return undefined;
  const parts = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([sort, n]) => `${n} ${sort}${n > 1 ? '(s)' : ''}`);
  return `no Kubernetes or Karpenter objects in ${total} file(s): ${parts.join(', ')}`;
}

/** A skip entry that stands for one file not read by design (the summary lines are counted from `notRead`). */
function perFileSort(reason: string): string | undefined {
  if (/^unrendered (Helm\/Go )?template|^unrendered template file/.test(reason)) return 'template';
  if (/^Kustomize /.test(reason)) return 'Kustomize file';
  if (/^Helm chart metadata|^Helm values file|^values of a chart/.test(reason)) return 'Helm chart file';
  if (/^not a Kubernetes object/.test(reason)) return 'other YAML or JSON file';
  if (/^empty file$/.test(reason)) return 'empty file';
  return undefined;
}

/**
 * Where a group of files is: the file itself when it is one, else the directory they share (`infra/`), so that no
 * single file stands for the whole group (a summary of four Terraform files is not "locals.tf: …").
 */
export function groupSource(paths: readonly string[]): string {
  if (paths.length <= 1) return paths[0] ?? '';
  const split = paths.map((p) => p.split('/'));
  const common: string[] = [];
  for (let i = 0; i < split[0]!.length - 1; i++) {
    const part = split[0]![i]!;
    if (!split.every((s) => s.length - 1 > i && s[i] === part)) break;
    common.push(part);
  }
  return common.length ? `${common.join('/')}/` : '.';
}

/** One line per group: the sorts counted, with an example file. */
export function summariseNotManifests(files: Array<[string, string]>, chartPackages: string[]): SkippedInput[] {
  const out: SkippedInput[] = [];
  if (files.length) {
    const counts = new Map<string, number>();
    for (const [, sort] of files) counts.set(sort, (counts.get(sort) ?? 0) + 1);
    const parts = [...counts]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([sort, n]) => `${n} ${sort}${n > 1 && !sort.endsWith('s') ? '(s)' : ''}`);
    out.push({
      source: groupSource(files.map(([f]) => f)),
      reason: `${files.length} file(s) that are not Kubernetes manifests not read: ${parts.join(', ')} (e.g. ${files[0]![0]})`,
    });
  }
  if (chartPackages.length) {
    out.push({
      source: groupSource(chartPackages),
      reason: `${chartPackages.length} packaged Helm chart(s) (.tgz) inside the scanned directory not opened (e.g. ${chartPackages[0]}; pass one as an argument to read it)`,
    });
  }
  return out;
}

/**
 * Reasons that repeat per item or per document of one file (a list of things that are not objects, every document of
 * a template) are one entry per file: the first, with how many more and where.
 */
const PER_ITEM = [/^not a Kubernetes object/, /^unrendered Helm\/Go template/, /^a log record, not a Kubernetes object/, / without metadata\.name$/];

export function foldPerFile(skipped: SkippedInput[]): SkippedInput[] {
  const first = new Map<string, { entry: SkippedInput; more: number[] }>();
  const out: SkippedInput[] = [];
  for (const s of skipped) {
    const family = PER_ITEM.findIndex((re) => re.test(s.reason));
    if (family < 0) {
      out.push(s);
      continue;
    }
    const key = `${s.source}\u0000${family}`;
    const seen = first.get(key);
    if (seen) {
      if (s.line !== undefined) seen.more.push(s.line);
      else seen.more.push(0);
      continue;
    }
    const entry = { ...s };
    first.set(key, { entry, more: [] });
    out.push(entry);
  }
  for (const { entry, more } of first.values()) {
    if (!more.length) continue;
    const lines = more.filter((l) => l > 0);
    const where = lines.length ? `, at line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''}` : '';
    entry.reason = `${entry.reason} (and ${more.length} more like it in this file${where})`;
  }
  return out;
}

/**
 * Skips that are by design — documentation, tooling, chart metadata and values, templates, other pods' logs, files
 * the user left out — as opposed to input that was meant to be read and could not be (a YAML error, malformed HCL,
 * a corrupt archive entry, an object without a name). Code scanning shows only the latter: a CI run on a repository
 * full of READMEs and Makefiles must not raise a warning per file.
 */
const BY_DESIGN = [
  /documentation file\(s\) not read/,
  /that are not Kubernetes manifests not read/,
  /^\d+ packaged Helm chart/,
  /^Kustomize configuration/,
  /^Kustomize JSON patch/,
  /^Helm chart metadata/,
  /^Helm values file/,
  /^values of a chart named karpenter/,
  /karpenter chart's own default values/,
  /^unrendered (Helm\/Go )?template/,
  /container log\(s\) of pods other than/,
  /^not a Kubernetes object/,
  /^a log record, not a Kubernetes object/,
  /^ignored \S+ directory$/,
  /^already read as /,
  /^left out by ignorePaths/,
  / superseded by .*: findings cite what runs$/,
  / not used: the controller settings come from /,
  /^Terraform kubernetes_\S+ resource\(s\) not read/,
  /^\d+ Terraform Kubernetes resource\(s\) not read: .* is computed by Terraform\)/,
  /^empty file$/,
  /^kubectl message, not an object/,
];

export function isUnreadableInput(s: SkippedInput): boolean {
  return !BY_DESIGN.some((re) => re.test(s.reason));
}
