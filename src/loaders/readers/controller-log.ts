/**
 * Container log files: a pod's log in a dump layout (must-gather, `cluster-info dump` directories), a `.log`/`.txt`
 * file, or any text most of whose lines are Karpenter controller records. Logs of other pods are counted, not read.
 */
import { isKarpenterControllerPod, looksLikeKarpenterLog, podFromLogPath } from '../logs.js';
import { StrayLineHandler, linesOf, skipLongLines } from '../text-lines.js';
import type { Reader } from './reader.js';
import { looksLikeObjects } from './sniffs.js';

export const controllerLog: Reader = {
  id: 'controller-log',
  needs: 'content',
  sniff: (s) =>
    !looksLikeObjects(s.sample) &&
    (podFromLogPath(s.relPath) !== null || (s.embedded ? /\.log$/ : /\.(log|txt)$/).test(s.name) || looksLikeKarpenterLog(s.sample))
      ? 1
      : 0,
  read: async ({ file, chunks }, sink) => {
    const logPod = podFromLogPath(file.relPath);
    if (logPod && !isKarpenterControllerPod(logPod.name, logPod.container)) return 'ignored-log';
    const stray = new StrayLineHandler(file.displayPath, sink);
    for await (const { text, line } of linesOf(chunks, skipLongLines(sink, file.displayPath))) stray.logLine(text, line, logPod ?? undefined);
    stray.finish();
    return 'loaded';
  },
};
