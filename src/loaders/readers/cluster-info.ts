/**
 * The stdout of `kubectl cluster-info dump`: JSON lists of every kind, one after the other, with each pod's logs
 * between `==== START logs for container …` / `==== END …` markers. Never one clean JSON value, so it goes
 * straight to the stream; the controller's log blocks become log records, other pods' are counted.
 */
import type { Reader } from './reader.js';
import { streamJson } from './json.js';
import { startsLikeJson } from './sniffs.js';

const LOG_BLOCK = /^==== START logs for container \S+ of pod /m;

export const clusterInfoDump: Reader = {
  id: 'cluster-info-dump',
  needs: 'content',
  sniff: (s) => (startsLikeJson(s.sample) && LOG_BLOCK.test(s.sample) ? 1 : 0),
  read: async (input, sink) => {
    await streamJson(input, input.chunks, sink);
    return 'loaded';
  },
};
