/**
 * YAML: manifests and `kubectl get -o yaml` output, one document or many, lists, kubectl messages and log blocks
 * mixed in. Three paths that must agree (see yaml-load.ts): js-yaml on the whole file when it parses cleanly, else small
 * files through the exact `yaml` parser (best messages and positions) and big ones streamed.
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
    const small = file.size <= SMALL_YAML_BYTES;
    const path = opts.yamlPath ?? (small ? 'exact' : 'whole');
    // A clean small file is parsed whole too, its lines found at once by a line scan: the `yaml` parser, 8–12× slower,
    // is kept for the files that need its messages (a dump's hundreds of small files would otherwise double its load).
    const eagerLines = small && !opts.yamlPath;
    const rest = path === 'whole' || eagerLines ? tryWhole(file, false, chunks, sink, { eagerLines }) : chunks;
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
