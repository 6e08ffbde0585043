/**
 * The readers of kubectl's text output (describe, get tables, event rows, eks-node-viewer) look for shell command
 * lines in a file's first 64 KiB. On a cluster dump that is every line of every pods.json, for nothing: the file opens
 * as a JSON document. Counted in calls, not milliseconds.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sniff } from '../src/loaders/readers/reader.js';
import type * as Command from '../src/loaders/readers/ticket/command.js';

const commandLines = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../src/loaders/readers/ticket/command.js', async (importOriginal) => {
  const real = await importOriginal<typeof Command>();
  return {
    ...real,
    parseCommand: (...args: Parameters<typeof real.parseCommand>) => {
      commandLines.calls++;
      return real.parseCommand(...args);
    },
  };
});
const { pickReader } = await import('../src/loaders/readers/registry.js');

function sniff(name: string, text: string): Sniff {
  const head = Buffer.from(text, 'utf8').subarray(0, 64 << 10);
  return { name, relPath: `payments/${name}`, size: Buffer.byteLength(text), direct: false, head, sample: head.toString('utf8') };
}

/** A pod list as `kubectl cluster-info dump` writes it: indented JSON, one field a line. */
function podList(pods: number): string {
  const items = Array.from({ length: pods }, (_, i) => ({
    metadata: { name: `checkout-api-7d9f-${i}`, namespace: 'payments', labels: { app: 'checkout-api' } },
    spec: {
      nodeName: `ip-10-4-${i % 250}-17.eu-west-1.compute.internal`,
      containers: [{ name: 'api', image: 'registry.example/checkout:4.2.0', args: ['--port=8080'] }],
    },
    status: { phase: 'Running' },
  }));
  return JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '91822' }, items }, null, 4);
}

describe('sniffing a dump file', () => {
  beforeEach(() => {
    commandLines.calls = 0;
  });

  it('a JSON pod list goes to the JSON reader without a line of it being tested as a command', () => {
    expect(pickReader(sniff('pods.json', podList(400)))?.id).toBe('json');
    expect(commandLines.calls).toBe(0);
  });

  it('a YAML manifest goes to the YAML reader the same way', () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n${Array.from({ length: 300 }, (_, i) => `- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: web-${i}\n    namespace: shop\n`).join('')}`;
    expect(pickReader(sniff('pods.yaml', text))?.id).toBe('yaml');
    expect(commandLines.calls).toBe(0);
  });

  it('a get table (the near miss: text output) is still looked through for a command line, and read as a table', () => {
    const table = [
      'NAME                          READY   STATUS    RESTARTS   AGE',
      ...Array.from({ length: 20 }, (_, i) => `checkout-api-7d9f-${i}          1/1     Running   0          3d`),
    ].join('\n');
    expect(pickReader(sniff('pods.txt', table))?.id).toBe('kubectl-get-table');
    expect(commandLines.calls).toBeGreaterThan(0);
  });
});
