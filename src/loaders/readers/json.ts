/**
 * JSON: one document, a `kubectl get -o json` list, or a stream of values (several `kubectl get -o json` outputs one
 * after the other, kubectl's stderr mixed in, YAML appended with `>>`), parsed whole when it can be, streamed
 * otherwise.
 */
import { JsonStreamScanner } from '../json-stream.js';
import { recordFromJson } from '../logs.js';
import { acceptDocument, acceptObject, jsonPatchText, kindKey, listItemType } from '../objects.js';
import { StrayLineHandler } from '../text-lines.js';
import { YamlStreamLoader } from '../yaml-load.js';
import type { Reader, ReadInput, ReadSink } from './reader.js';
import { ACCEPTED_EXTENSIONS, looksLikeObjects, startsLikeJson } from './sniffs.js';
import { tryWhole } from './whole-file.js';

export const json: Reader = {
  id: 'json',
  needs: 'content',
  sniff: (s) => (startsLikeJson(s.sample) && (s.embedded || ACCEPTED_EXTENSIONS.test(s.name) || looksLikeObjects(s.sample)) ? 1 : 0),
  read: async (input, sink) => {
    const rest = input.opts.jsonPath === 'stream' ? input.chunks : tryWhole(input.file, true, input.chunks, sink);
    if (rest) await streamJson(input, rest, sink);
    return 'loaded';
  },
};

export async function streamJson({ file }: ReadInput, chunks: AsyncIterable<Buffer>, sink: ReadSink): Promise<void> {
  const stray = new StrayLineHandler(file.displayPath, sink);
  const loader = jsonLoader(file.displayPath, sink, stray);
  for await (const chunk of chunks) loader.push(chunk);
  loader.end();
  stray.finish();
}

/** The streaming JSON path as a push/end object, so a file can also be re-read synchronously to locate lines. */
function jsonLoader(source: string, sink: ReadSink, stray: StrayLineHandler): { push(chunk: Buffer): void; end(): void } {
  // Items of typed lists whose kind arrives only after the items (kubectl sorts keys) wait for their list.
  let pending: Array<{ value: unknown; line: number }> = [];
  // YAML appended to a JSON capture (`kubectl get nodepools -o yaml >> dump.txt`) is read as YAML until the next value.
  let yaml: YamlStreamLoader | undefined;
  // A top-level list of `{op, path, value}` is a Kustomize JSON patch file: one skipped entry, not one per operation.
  const flush = (type?: ReturnType<typeof listItemType>) => {
    const patch = type?.kind ? undefined : jsonPatchText(pending.map((p) => p.value));
    if (patch) sink.skipped.push({ source, line: pending[0]!.line, reason: patch });
    else for (const p of pending) acceptObject(p.value, source, p.line, sink, type, true);
    pending = [];
  };
  const endYaml = () => {
    yaml?.finish();
    yaml = undefined;
  };
  const scanner = new JsonStreamScanner({
    value: (value, line) => {
      endYaml();
      // Controller log records saved as JSON (one per line, or pretty-printed by a viewer) are records, not objects.
      const record = recordFromJson(value, line, { source });
      if (record) sink.logs.push(record);
      else acceptDocument(value, source, line, sink);
    },
    item: (value, line) => {
      endYaml();
      const v = value as Record<string, unknown> | null;
      if (v && typeof v === 'object' && typeof v.kind === 'string' && typeof v.apiVersion === 'string') {
        acceptObject(v, source, line, sink, {}, true);
      } else {
        // A viewer's JSON export is an array of records (or of rows holding one).
        const record = recordFromJson(value, line, { source });
        if (record) sink.logs.push(record);
        else pending.push({ value, line });
      }
    },
    listEnd: (_id, wrapper) => {
      const type = listItemType(wrapper);
      if (type.kind && type.apiVersion) sink.listedKinds.add(kindKey(type.apiVersion, type.kind));
      flush(type);
    },
    text: (text, line) => {
      if (!yaml && !stray.inBlock && YAML_DOCUMENT_START.test(text)) yaml = new YamlStreamLoader(source, sink, stray);
      if (yaml) yaml.line(text, line);
      else stray.line(text, line);
    },
    error: (message, line) => sink.skipped.push({ source, line, reason: message }),
    inTextBlock: () => stray.inBlock,
  });
  return {
    push: (chunk) => scanner.push(chunk),
    end: () => {
      scanner.end();
      endYaml();
      flush();
    },
  };
}

const YAML_DOCUMENT_START = /^(---(\s|$)|apiVersion:|kind:|items:)/;
