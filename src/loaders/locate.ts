/**
 * Lines for files that were parsed whole: re-scan the file and list where each object starts, in the order the
 * whole-file parse produced them. Items are located, not decoded, and only files a report cites are re-read.
 */
import { readFileSync } from 'node:fs';
import { JsonStreamScanner } from './json-stream.js';
import { isListKind } from './objects.js';
import { StrayLineHandler } from './text-lines.js';
import { YamlStreamLoader } from './yaml-load.js';
import { pushAll } from '../kube/lists.js';

export function locateUnitLines(fsPath: string, source: string): number[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(fsPath);
  } catch {
    return []; // the file went away since the scan read it: the report shows no line rather than failing
  }
  if (/^\s*[{[]/.test(bytes.subarray(0, 4096).toString('utf8'))) return jsonUnitLines(bytes);
  return yamlUnitLines(bytes.toString('utf8'), source);
}

/** A file parsed whole holds one JSON value: a list (its items are the objects) or one object. */
function jsonUnitLines(bytes: Buffer): number[] {
  const lines: number[] = [];
  let items: number[] = [];
  const scanner = new JsonStreamScanner(
    {
      value: (_v, line) => lines.push(line),
      item: (_v, line) => items.push(line),
      listEnd: (_id, wrapper, line) => {
        const list = Object.keys(wrapper).length === 0 || isListKind(wrapper.kind);
        pushAll(lines, list ? items : [line]);
        items = [];
      },
      text: () => undefined,
      error: () => undefined,
    },
    { decode: false },
  );
  scanner.push(bytes);
  scanner.end();
  return lines;
}

/** Start lines of the objects of a YAML text, in the order a whole-file js-yaml parse yields them. */
export function yamlUnitLines(text: string, source: string): number[] {
  const lines: number[] = [];
  const sink = { objects: [], skipped: [], listedKinds: new Set<string>() };
  const stray = new StrayLineHandler(source, { logs: [], skipped: [], ignoredLogBlocks: new Map() });
  const loader = new YamlStreamLoader(source, sink, stray, { onUnit: (line) => lines.push(line) });
  text.split('\n').forEach((l, i) => loader.line(l.endsWith('\r') ? l.slice(0, -1) : l, i + 1));
  loader.finish();
  return lines;
}
