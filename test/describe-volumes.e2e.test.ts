/** A ticket's `kubectl describe pvc/pv/storageclass`, scanned with the built CLI: the volume rules judge what it shows. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'karpdoctor.js');
const DIR = 'fixtures/tickets/describe-volumes';
const RULES = ['--rule', 'pv-zone-unreachable', '--rule', 'pvc-references-missing-object', '--rule', 'storageclass-immediate-binding'];

interface Report {
  snapshot: { counts: Record<string, number> };
  findings: Array<{ ruleId: string; severity: string; message: string }>;
  notEvaluated: Array<{ ruleId: string; reason: string }>;
}

function scan(...files: string[]): Report {
  const r = spawnSync(process.execPath, [BIN, 'scan', ...files.map((f) => join(DIR, f)), '--format', 'json', ...RULES], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Report;
}

describe('describe of volumes in a ticket', () => {
  it('a zonal EBS volume no NodePool reaches: pv-zone-unreachable on the described PV; no StorageClass shown, the others not evaluated', () => {
    const r = scan('zonal-ebs-affinity-conflict.md');
    expect(r.snapshot.counts).toEqual({ NodePool: 1, PersistentVolume: 1, PersistentVolumeClaim: 1 });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['pv-zone-unreachable']);
    expect(r.findings[0]!.message).toContain('pinned to us-west-2a, which no NodePool reaches');
    expect(r.findings[0]!.message).toContain('claim finance/data-ledger-db-0');
    expect(r.notEvaluated.map((n) => n.ruleId).sort()).toEqual(['pvc-references-missing-object', 'storageclass-immediate-binding']);
  });

  it('with the Pending pod described too: its events fire the symptom; whether it mounts the claim is not shown, so the cause is not evaluated', () => {
    const r = scan('zonal-ebs-affinity-conflict.md', 'pod-pending-volume-conflict.txt');
    // The pod's own events show 1h55m of "volume node affinity conflict": a symptom a user needs to see, at warning,
    // without claiming the PVs, claims or NodePools the paste does hold are absent.
    const f = r.findings.filter((x) => x.ruleId === 'pv-zone-unreachable');
    expect(f.map((x) => x.severity)).toEqual(['warning']);
    expect(f[0]!.message).toContain('has been Pending with "volume node affinity conflict" for 1h55m');
    expect(f[0]!.message).toContain('does not show which claim the pod mounts');
    expect(f[0]!.message).not.toContain('No PersistentVolumes');
    const ne = r.notEvaluated.find((n) => n.ruleId === 'pv-zone-unreachable');
    expect(ne?.reason).toContain('Pod finance/ledger-db-0');
    expect(ne?.reason).toContain('spec.volumes');
  });

  it("the claim's class described with Immediate binding: the class is flagged, the claim's reference resolves", () => {
    const r = scan('zonal-ebs-affinity-conflict.md', 'storageclass-immediate.txt');
    expect(r.findings.map((f) => f.ruleId).sort()).toEqual(['pv-zone-unreachable', 'storageclass-immediate-binding']);
    const sc = r.findings.find((f) => f.ruleId === 'storageclass-immediate-binding')!;
    expect(sc.message).toContain('StorageClass ebs-gp3 (ebs.csi.aws.com) binds volumes Immediately across 2 zones');
    expect(r.notEvaluated).toEqual([]);
  });

  it('near miss: a WaitForFirstConsumer class is not flagged', () => {
    const r = scan('zonal-ebs-affinity-conflict.md', 'storageclass-wffc-topologies.txt');
    expect(r.findings.filter((f) => f.ruleId === 'storageclass-immediate-binding')).toEqual([]);
  });
});
