/** Workload tables in a ticket, scanned with the built CLI: read and counted, the version from the controller's row, no finding. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');

describe('kubectl get deploy|sts|ds|rs tables through the CLI', () => {
  it('the rows become workloads; the rules that need their templates say what would show them', () => {
    const r = spawnSync(process.execPath, [BIN, 'scan', 'fixtures/tickets/tables/workloads-rollout.txt', '--now', '2026-03-10T10:00:00Z'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' },
    });
    expect(r.stderr).toBe('');
    const out = r.stdout.replace(/\s+/g, ' ');
    expect(out).toContain('Objects DaemonSet 3, Deployment 4, ReplicaSet 3, StatefulSet 2');
    expect(out).toContain('Karpenter v1.3.3 (image public.ecr.aws/karpenter/controller:1.3.3@sha256:4f1c');
    expect(out).toContain('No findings.');
    expect(out).toContain(
      'karpenter-controller-on-karpenter-node: Deployment karpenter/karpenter (fixtures/tickets/tables/workloads-rollout.txt): a `kubectl get` table does not show spec.template.spec.affinity',
    );
  });
});
