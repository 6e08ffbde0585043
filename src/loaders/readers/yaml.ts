/**
 * YAML: manifests and `kubectl get -o yaml` output, one document or many, lists, kubectl messages and log blocks
 * mixed in. Three paths that must agree (see yaml-load.ts): small files through the exact `yaml` parser (best
 * messages and positions), big ones whole with js-yaml or streamed.
 */
import { StrayLineHandler, linesOf, skipLongLines } from '../text-lines.js';
import { YamlStreamLoader, loadYamlText } from '../yaml-load.js';
import { readAll, type Reader } from './reader.js';
import { findTemplateAction, templateReason } from '../templates.js';
import { ACCEPTED_EXTENSIONS, looksLikeObjects } from './sniffs.js';
import { tryWhole } from './whole-file.js';

/**
 * Below this size a YAML file goes through the exact `yaml` parser (manifests: best messages and positions);
 * above it, the whole-file or streaming js-yaml path, 8–12× faster on dumps. A test holds the paths to the same objects.
 */
const SMALL_YAML_BYTES = 256 << 10;

export const yaml: Reader = {
  id: 'yaml',
  needs: 'content',
  sniff: (s) => ((s.embedded ? /\.ya?ml$/.test(s.name) : ACCEPTED_EXTENSIONS.test(s.name)) || looksLikeObjects(s.sample) ? 1 : 0),
  read: async ({ file, chunks, opts }, sink) => {
    const path = opts.yamlPath ?? (file.size <= SMALL_YAML_BYTES ? 'exact' : 'whole');
    const rest = path === 'whole' ? tryWhole(file, false, chunks, sink) : chunks;
    if (!rest) return 'loaded';
    const stray = new StrayLineHandler(file.displayPath, sink);
    if (path === 'exact') {
      const text = await readAll(rest);
      // The template reader saw the first bytes only; an action further down makes the file a template all the same.
      const action = file.size <= SMALL_YAML_BYTES ? findTemplateAction(text) : undefined;
      if (action) {
        sink.skipped.push({ source: file.displayPath, line: action.line, reason: templateReason(action.sample) });
        return 'skipped';
      }
      loadYamlText(text, file.displayPath, sink, stray);
    } else {
      const loader = new YamlStreamLoader(file.displayPath, sink, stray);
      for await (const { text, line } of linesOf(rest, skipLongLines(sink, file.displayPath))) loader.line(text, line);
      loader.finish();
    }
    stray.finish();
    return 'loaded';
  },
};
