/**
 * What live-read tests share: the example cluster as a fake API server serves it (objects and the reference time an
 * offline scan of it uses), and `collect` run in this process, as the fake server answers from here.
 */
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { collectCommand, type CollectOptions } from '../../src/cli/collect.js';
import { loadInputs } from '../../src/loaders/load.js';
import type { KubeObject } from '../../src/kube/types.js';
import { Snapshot } from '../../src/snapshot/snapshot.js';
import { FIXTURES } from './scan.js';

export async function exampleCluster(): Promise<{ objects: KubeObject[]; referenceTime: string }> {
  const load = await loadInputs([join(FIXTURES, 'example-cluster')]);
  return { objects: load.objects.map((o) => o.object), referenceTime: new Snapshot(load).referenceTime.iso };
}

/** Runs `karpdoctor collect` in this process and returns what it told the user on stderr; it must succeed. */
export async function collectInProcess(opts: CollectOptions): Promise<string> {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    expect(await collectCommand(opts, '0.1.0-test')).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return stderr;
}

/**
 * Names a hostile or careless server may hand out for a controller pod: a path that climbs to Secrets, an encoded
 * `..`, and one the API server would not accept either but that is harmless once encoded (`?`, `=`, `#`).
 */
export const HOSTILE_NAMES = ['karpenter-x/../../../secrets/db-credentials', 'karpenter-%2e%2e'];
export const ODD_NAME = 'karpenter-7f9c?x=1#frag';

/** A copy of a pod under another name (and namespace). */
export function renamedPod(template: KubeObject, name: string, namespace = template.metadata.namespace): KubeObject {
  return { ...structuredClone(template), metadata: { ...structuredClone(template.metadata), name, namespace, uid: `uid-${namespace}-${name}` } };
}

/** The Secret a path from a hostile name would reach: a test asserts no request of it. */
export const PLANTED_SECRET: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db-credentials', namespace: 'payments' },
  data: { password: 'aHVudGVyMg==' },
};

/** One controller log line as `kubectl logs --timestamps` prints it. */
export function controllerLogLine(message: string): string {
  return `2025-03-11T14:29:00.000000000Z {"level":"INFO","time":"2025-03-11T14:29:00.000Z","logger":"controller","message":"${message}"}\n`;
}
