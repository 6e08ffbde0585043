/**
 * Helm chart metadata and values files (see helm-files.ts): read here, kept aside in the sink until every file is
 * in, when values find their chart (or are reported skipped).
 */
import { CHART_FILE, VALUES_FILE, readChartFile, readValuesFile } from '../helm-files.js';
import { readAll, type Reader } from './reader.js';

/** Bigger "values" files are not configuration anybody wrote by hand: the tooling reader reports them. */
const MAX_HELM_FILE_BYTES = 256 << 10;

export const helmFiles: Reader = {
  id: 'helm',
  needs: 'name',
  sniff: (s) => ((CHART_FILE.test(s.name) || VALUES_FILE.test(s.name)) && s.size <= MAX_HELM_FILE_BYTES ? 1 : 0),
  read: async ({ file, name, chunks }, sink) => {
    const text = await readAll(chunks);
    if (VALUES_FILE.test(name)) sink.helm.values.push(readValuesFile(text, file.displayPath, file.relPath, file.fsPath));
    else sink.helm.charts.push(readChartFile(text, file.displayPath));
    return 'loaded';
  },
};
