/**
 * Files that are plainly not manifests — Makefiles, Dockerfiles, scripts and source files, Terraform state and
 * variables — and Helm templates: named or counted, never parsed as YAML (see skip-summary.ts).
 */
import { findTemplateAction, templateReason } from '../templates.js';
import { notManifestContent, notManifestKind } from '../skip-summary.js';
import { readAll, notManifest, type Reader } from './reader.js';

export const notManifestFiles: Reader = {
  id: 'not-manifest',
  needs: 'name',
  sniff: (s) => (notManifestKind(s.name) ? 1 : 0),
  read: async ({ name }) => notManifest(notManifestKind(name)!),
};

/**
 * A script without an extension (`bin/deploy`, a Ruby or Node CLI) or a MIME multipart document (user data) found in
 * a directory: counted, not cut into ticket blocks. A file named on the command line is what the user asked to read.
 */
export const notManifestContentFiles: Reader = {
  id: 'not-manifest-content',
  needs: 'content',
  sniff: (s) => (!s.direct && notManifestContent(s.sample) ? 1 : 0),
  read: async ({ sample }) => notManifest(notManifestContent(sample)!),
};

/** Templates are manifests-to-be; above this size a YAML file is a dump, rendered by definition. */
const MAX_TEMPLATE_BYTES = 256 << 10;

/**
 * A YAML file with Go-template actions (`{{- range … }}` at the top, `name: {{ $name }}`, Helm's `.Values`): one skip
 * entry for the file, nothing loaded from it. Offered before the JSON reader: `{{-` is not the `{` of a JSON object.
 * A template under a chart's `templates/` also says whether that chart renders Karpenter's controller.
 */
export const helmTemplate: Reader = {
  id: 'template',
  needs: 'content',
  sniff: (s) => (s.size <= MAX_TEMPLATE_BYTES && findTemplateAction(s.sample) ? 1 : 0),
  read: async ({ file, chunks }, sink) => {
    const text = await readAll(chunks);
    const action = findTemplateAction(text)!;
    sink.skipped.push({ source: file.displayPath, line: action.line, reason: templateReason(action.sample) });
    recordChartTemplate(file.displayPath, text, sink.helm);
    return 'skipped';
  },
};

/** `charts/karpenter/templates/deployment.yaml` → `charts/karpenter`: the chart whose template this is. */
function chartOfTemplate(source: string): string | undefined {
  const at = source.lastIndexOf('/templates/');
  if (at >= 0) return source.slice(0, at);
  return source.startsWith('templates/') ? '.' : undefined;
}

/** A template that renders Karpenter's controller: a Deployment fed from the chart's controller or settings values. */
function recordChartTemplate(source: string, text: string, helm: { templates?: Array<{ dir: string; source: string; rendersController: boolean }> }): void {
  const dir = chartOfTemplate(source);
  if (!dir) return;
  const rendersController = /^kind:\s*Deployment\b/m.test(text) && /\.Values\.(controller|settings)\b/.test(text);
  (helm.templates ??= []).push({ dir, source, rendersController });
}
