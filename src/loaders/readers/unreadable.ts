/** Files with nothing to read in them: empty (or whitespace only), or binary. Each is reported with why. */
import { notManifest, type Reader } from './reader.js';
import { ACCEPTED_EXTENSIONS } from './sniffs.js';

export const emptyFile: Reader = {
  id: 'empty',
  needs: 'content',
  sniff: (s) => (s.head.length === 0 || s.sample.trim() === '' ? 1 : 0),
  read: async ({ file }, sink) => {
    sink.skipped.push({ source: file.displayPath, reason: 'empty file' });
    return 'skipped';
  },
};

export const binaryFile: Reader = {
  id: 'binary',
  needs: 'content',
  sniff: (s) => (s.head.subarray(0, 8192).includes(0) ? 1 : 0),
  read: async ({ file, name }, sink) => {
    // An image or a compiled tool next to the manifests is counted with the files that are not manifests.
    if (!ACCEPTED_EXTENSIONS.test(name)) return notManifest('binary file');
    sink.skipped.push({ source: file.displayPath, reason: 'binary file, not YAML, JSON or a log' });
    return 'skipped';
  },
};
