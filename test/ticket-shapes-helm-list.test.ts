/**
 * `helm list -o json|yaml` and JSON array elements pasted without their brackets
 * (fixtures/tickets/shapes/helm-list-and-elements.md): releases are not objects, but the Karpenter chart they show
 * deployed is a stated version; `{…},` then `{…}` are two objects, the comma between them no text of its own.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../src/loaders/load.js';
import { FIXTURES } from './support/scan.js';

const FILE = join(FIXTURES, 'tickets', 'shapes', 'helm-list-and-elements.md');

describe('helm list as JSON or YAML, and array elements without brackets', () => {
  it('each release list is named as helm list output and states the Karpenter chart it shows (not karpenter-crd)', async () => {
    const r = await loadInputs([FILE]);
    expect(r.skipped.map((s) => `${s.line} ${s.reason}`)).toEqual([
      '4 shell commands, not read',
      '5 helm list output, read only for the Karpenter version it states (1.0.7)',
      '11 helm list output, read only for the Karpenter version it states (1.0.5)',
      '1 prose (3 paragraphs), not objects or logs',
    ]);
    expect(r.statedVersions?.map((v) => `${v.line} ${v.how} ${v.version}`)).toEqual(['5 helm list 1.0.7', '12 helm list 1.0.5']);
  });

  it('objects copied out of an items array with the commas between them are each read', async () => {
    const r = await loadInputs([FILE]);
    expect(r.objects.map((o) => `${o.object.kind} ${o.object.metadata.name} @${o.provenance.line}`)).toEqual(['NodePool batch @22', 'NodePool web @28']);
  });

  it('an object whose fields have the release keys is read as the object', async () => {
    const text = [
      'Our release object:',
      '',
      '```yaml',
      'apiVersion: example.io/v1',
      'kind: Release',
      'metadata:',
      '  name: karpenter',
      'spec:',
      '  chart: karpenter-1.0.7',
      'status:',
      '  app_version: 1.0.7',
      '  revision: 3',
      '  status: deployed',
      '```',
      '',
    ].join('\n');
    const r = await loadInputs(['-'], { stdin: (await import('node:stream')).Readable.from([Buffer.from(text)]) });
    expect(r.skipped.map((s) => s.reason).filter((reason) => reason.startsWith('helm list'))).toEqual([]);
  });

  it('a chart key outside a release list states nothing', async () => {
    const text = 'Our values file:\n\n```yaml\nchart: karpenter-1.0.7\nreplicas: 2\n```\n';
    const r = await loadInputs(['-'], { stdin: (await import('node:stream')).Readable.from([Buffer.from(text)]) });
    expect(r.statedVersions ?? []).toEqual([]);
  });
});
