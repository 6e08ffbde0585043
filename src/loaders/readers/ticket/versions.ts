/**
 * The Karpenter version a ticket states in words. Karpenter's issue templates ask for it (`**Versions**:` then
 * `- Chart Version: 1.1.1`; older ones `__Karpenter Version:__ v0.19.0`), and people paste the commands they ran
 * (`helm upgrade --install karpenter oci://… --version "1.0.6"`, `export KARPENTER_VERSION="1.0.6"`). Only labelled
 * statements count, and a sentence only when it names one release and nothing of an upgrade ("we run Karpenter version
 * 1.0.5"): "we upgraded from 0.37 to 1.0" names two versions and neither for sure.
 */
import type { StatedVersion } from '../../types.js';

const SEMVER_BODY = String.raw`\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?`;
/** A release, or a minor series with its patch left open (`0.33`, `0.36.x`, `1.0.*`): where a person names what runs. */
const RELEASE_OR_SERIES = String.raw`\d+\.\d+(?:\.\d+(?:-[0-9A-Za-z.]+)?|\.[xX*])?`;
const SEMVER = String.raw`v?(${SEMVER_BODY})`;
const BOLD = String.raw`(?:\*\*|__)?`;
/**
 * `Chart Version`, `Karpenter Version`, `Karpenter chart version`, `Karpenter Helm chart version`, `Karpenter chart`,
 * or `Karpenter` alone.
 */
const LABEL = String.raw`(?:karpenter\s+(?:helm\s+)?(?:chart\s+)?version|(?:karpenter\s+)?(?:helm\s+)?chart\s+version|karpenter(?:\s+(?:helm\s+)?chart)?)`;
/**
 * Blank space taken whole and never given back (a lookahead is atomic): several optional runs of `\s*` side by side
 * would otherwise try every way of sharing a long run of spaces between them, for every place the pattern is tried.
 */
function space(name: string): string {
  return String.raw`(?=(?<${name}>\s*))\k<${name}>`;
}
/**
 * The label where a field starts (a line, a list item, after `**Versions**:` or a comma when the template was pasted
 * on one line, a table cell), its colon inside or outside the bold (or the cell's `|`, or a spaced dash as in
 * `Karpenter - v0.19.3`), then the value (in backticks or quotes, maybe `karpenter-1.0.6`). Where it starts is looked at behind the label, so a run of spaces before it is
 * not scanned again from each of its positions.
 */
const TEMPLATE_FIELD = new RegExp(
  String.raw`(?<=^|[\s,;(|]|(?:^|[\s,;(|])(?:\*\*|__))${LABEL}${space('a')}(?<colon>[:|]|[-–—](?=\s)|)${space('b')}${BOLD}${space('c')}(?<afterBold>[:|]?)${space('d')}[\`"']?(?:(?:running|using|on)\s+)?(?:karpenter-)?v?(?<version>${RELEASE_OR_SERIES})[\`"']?(?=$|[\s,;()|])`,
  'i',
);
/** The rest of a field that states an upgrade: `-> 1.0.9`, `→ v1.0.9`, `to 1.0.9`. */
const UPGRADE_TO = new RegExp(String.raw`^\s*[\`"']?\s*(?:->|→|=>|to)\s*[\`"']?(?:karpenter-)?v?(${RELEASE_OR_SERIES})[\`"']?(?=$|[\s,;()|])`, 'i');
const ENV_LINE = new RegExp(String.raw`^(?:[$#%]\s*)?(?:export\s+)?KARPENTER_VERSION\s*=\s*["']?${SEMVER}["']?\s*(?:;\s*)?$`);
/** A `helm list` row: `karpenter  kube-system  4  2025-… UTC  deployed  karpenter-1.0.6  1.0.6`. */
const HELM_LIST_ROW = new RegExp(String.raw`\s(?:deployed|failed|superseded|pending-[a-z]+)\s+karpenter-${SEMVER.replace('v?', '')}\s`);
/**
 * A release in `helm list -o json` (one line, or pretty-printed) or `-o yaml`: `"chart": "karpenter-1.0.6"`, with the
 * release's `app_version` and `revision` around it.
 */
const HELM_RELEASE_CHART = new RegExp(String.raw`(?:^|[\s{,-])"?chart"?\s*:\s*"?karpenter-(${SEMVER_BODY})"?(?=\s*[,}]|\s*$)`);
const HELM_RELEASE_SPAN = 8;
/**
 * A sentence naming one release as the one that runs: "We deployed Karpenter version 1.0.5 last week". Weakest of all:
 * only when the line names no other version and says nothing of an upgrade, a rollback or what came before.
 */
const SENTENCE = new RegExp(
  String.raw`\bkarpenter\s+(?:(?:helm\s+)?(?:chart\s+)?version\s+(?:is\s+|of\s+)?[\`"']?v?|v)(${RELEASE_OR_SERIES})[\`"']?(?=$|[\s,.;:!?()])(?!\.\d)`,
  'i',
);
const VERSION_LIKE = /(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?![\w.]*\d)/g;
const NOT_WHAT_RUNS = /\b(?:from|upgrad\w*|downgrad\w*|migrat\w*|previous\w*|older|earlier|rollback|roll(?:ed|ing)?\s+back|before|instead|tried|trying)\b/i;
const KARPENTER_MODULE_BLOCK = /^karpenter(?:_helm_config)?\s*=\s*\{\s*$/;
const TF_CHART_VERSION = new RegExp(String.raw`^(?:chart_)?version\s*=\s*"${SEMVER}"\s*$`);
const HELM_INSTALL = /\bhelm(?:\.exe)?\s+(?:upgrade|install|template)\b/;
/** The controller's chart (`oci://public.ecr.aws/karpenter/karpenter`, `karpenter/karpenter`), not `karpenter-crd`. */
const KARPENTER_CHART = /(?:^|\s)["']?(?:oci:\/\/[^\s"']*\/)?karpenter\/karpenter["']?(?=\s|$)/;
const HELM_VERSION = new RegExp(String.raw`\s--version[\s=]+["']?${SEMVER}["']?(?=\s|$)`);
/** The templates' own placeholder (`__Karpenter Version:__ v0.0.0`), left in place by people who did not fill it in. */
const PLACEHOLDER = '0.0.0';
const MAX_TEXT = 80;
/**
 * What says the ticket is about Karpenter's Azure provider, whose releases have their own numbers: its chart or image
 * (`mcr.microsoft.com/aks/karpenter/…`), the project by name (not a link to one of its threads), AKS Node Auto Provisioning.
 */
const AZURE_PROVIDER = /mcr\.microsoft\.com\/aks\/karpenter\b|\bkarpenter-provider-azure\b(?!\/(?:issues|pull|discussions)\/)|\bnode auto[- ]?provisioning\b/i;

export function statedVersions(lines: string[], source: string): StatedVersion[] {
  const out: StatedVersion[] = [];
  const azure = lines.some((l) => AZURE_PROVIDER.test(l));
  const add = (stated: string, i: number, text: string, how: StatedVersion['how']) => {
    if (stated === PLACEHOLDER) return;
    const t = text.trim().replace(/\s+/g, ' ');
    // `0.36.x`, `1.0.*`, `v0.33`: the series, its patch unknown (never taken as patch 0).
    const series = /^(\d+\.\d+)(?:\.[xX*])?$/.exec(stated)?.[1];
    const version = series ?? stated;
    out.push({
      version,
      ...(series ? { series: true } : {}),
      source,
      line: i + 1,
      text: t.length > MAX_TEXT ? `${t.slice(0, MAX_TEXT - 1)}…` : t,
      how,
      ...(azure ? { azure } : {}),
    });
  };
  let karpenterBlock = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = unquote(lines[i]!);
    const field = TEMPLATE_FIELD.exec(line);
    const template = field?.groups;
    if (field && template && (template.colon || template.afterBold)) {
      // `0.37.7 -> 1.0.9` in the field states the upgrade the ticket is about: what runs now is where it went.
      const upgraded = UPGRADE_TO.exec(line.slice(field.index + field[0].length))?.[1];
      add(upgraded ?? template.version!, i, line.replace(/^(?:[-*+]|\d+\.)\s+/, ''), 'template');
      continue;
    }
    const env = ENV_LINE.exec(line);
    if (env) {
      add(env[1]!, i, line.replace(/^[$#%]\s*/, ''), 'variable');
      continue;
    }
    // eks-blueprints-addons: `karpenter = {` … `chart_version = "0.37.0"` (older: `karpenter_helm_config = {` … `version = …`).
    if (KARPENTER_MODULE_BLOCK.test(line)) karpenterBlock = 1;
    else if (karpenterBlock > 0) {
      const version = TF_CHART_VERSION.exec(line);
      if (version && karpenterBlock === 1) add(version[1]!, i, line, 'terraform');
      karpenterBlock += (line.match(/[{[]/g) ?? []).length - (line.match(/[}\]]/g) ?? []).length;
      continue;
    }
    const row = HELM_LIST_ROW.exec(` ${line} `);
    if (row) {
      // From the STATUS column on: `deployed karpenter-1.0.9 1.0.9` is what the row says about the chart.
      add(
        row[1]!,
        i,
        `helm list: ${` ${line} `
          .slice(row.index + 1)
          .trim()
          .replace(/\s+/g, ' ')}`,
        'helm list',
      );
      continue;
    }
    const release = HELM_RELEASE_CHART.exec(line);
    if (release && helmRelease(lines, i)) {
      add(release[1]!, i, `helm list: chart karpenter-${release[1]!}`, 'helm list');
      continue;
    }
    const sentence = SENTENCE.exec(line);
    if (sentence && (line.match(VERSION_LIKE) ?? []).length === 1 && !NOT_WHAT_RUNS.test(line)) {
      add(sentence[1]!, i, line, 'sentence');
      continue;
    }
    if (!HELM_INSTALL.test(line)) continue;
    // A helm command continued over lines with `\`: its flags may sit on any of them.
    let command = line;
    for (let j = i; /\\\s*$/.test(unquote(lines[j]!)) && j + 1 < lines.length; j++) command = `${command.replace(/\\\s*$/, ' ')}${unquote(lines[j + 1]!)}`;
    const version = HELM_VERSION.exec(command);
    if (version && KARPENTER_CHART.test(command)) add(version[1]!, i, command.replace(/\s+/g, ' '), 'helm command');
  }
  return out;
}

function helmRelease(lines: string[], i: number): boolean {
  const near = lines.slice(Math.max(0, i - HELM_RELEASE_SPAN), i + HELM_RELEASE_SPAN + 1).join('\n');
  return /"?app_version"?\s*:/.test(near) && /"?revision"?\s*:/.test(near);
}

/** A quoted reply (`> - Chart Version: 1.1.1`) states the same; list markers and indentation say nothing. */
function unquote(line: string): string {
  return line
    .replace(/\r$/, '')
    .replace(/^\s*(?:>\s?)*/, '')
    .trim();
}
