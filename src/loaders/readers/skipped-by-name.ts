/**
 * Files recognised by name as not being cluster input: documentation next to manifests, karpdoctor's own files, and
 * the tooling files of a GitOps repository. Nothing of them is read; each is accounted for.
 */
import { CHART_SKIP, VALUES_SKIP } from '../helm-files.js';
import type { Reader } from './reader.js';

/** Documentation that lives next to manifests and dumps: counted in one line, not listed file by file. */
const DOCUMENTATION = /\.(md|markdown|rst|adoc)$|^(LICENSE|NOTICE|OWNERS|CODEOWNERS)(\..*)?$/i;

export const documentation: Reader = {
  id: 'documentation',
  needs: 'name',
  // A document named on the command line is what the user asked to scan (a ticket saved as .md): text readers take it.
  sniff: (s) => (!s.direct && DOCUMENTATION.test(s.name) ? 1 : 0),
  read: async () => 'ignored-doc',
};

/** karpdoctor's own configuration and baseline, committed next to the manifests they govern: not input at all. */
const OWN_FILES = /^\.karpdoctor(\.ya?ml|-baseline\.json)$/;

export const ownFiles: Reader = {
  id: 'karpdoctor-config',
  needs: 'name',
  sniff: (s) => (OWN_FILES.test(s.name) ? 1 : 0),
  read: async () => 'own',
};

/**
 * Files that belong to a GitOps repo's tooling rather than the cluster. Chart.yaml and values files small enough to
 * be configuration are taken by the Helm reader first; what reaches this list is skipped with its reason.
 */
const TOOLING_FILES: Array<[RegExp, string]> = [
  [/^kustomization\.ya?ml$|^Kustomization$/, 'Kustomize configuration, not a Kubernetes object'],
  [/^Chart\.ya?ml$|^Chart\.lock$/, CHART_SKIP],
  [/^values([.-].*)?\.ya?ml$/, VALUES_SKIP],
  [/\.tpl$/, 'unrendered template file'],
  [/^NOTES\.txt$/, "unrendered template file (a chart's install notes)"],
];

export const toolingFiles: Reader = {
  id: 'tooling',
  needs: 'name',
  sniff: (s) => (TOOLING_FILES.some(([pattern]) => pattern.test(s.name)) ? 1 : 0),
  read: async ({ file, name }, sink) => {
    const reason = TOOLING_FILES.find(([pattern]) => pattern.test(name))![1];
    sink.skipped.push({ source: file.displayPath, reason });
    return 'skipped';
  },
};
