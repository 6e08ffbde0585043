/**
 * Shapes a person reads past without noticing (fixtures/tickets/broken/): a code fence broken up by spaces with the
 * first line of output on it, `...` twice in a row in pasted YAML, and kubectl's or Terraform's refusal of an apply
 * because Karpenter's webhook failed TLS. Each case asserts what is read, what is skipped, the exact findings and the
 * stated-cause lines.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, scan } from './support/scan.js';

const file = (name: string) => join(FIXTURES, 'tickets', 'broken', name);

async function read(name: string, now: string) {
  const own = file(name);
  const r = await scan([own], { now });
  return {
    objects: r.load.objects.map(
      (o) => `${o.object.kind} ${o.object.metadata.name ?? '(no name)'}${o.provenance.partial ? ' (partial)' : ''} @${o.provenance.line}`,
    ),
    logs: r.load.logs.map((l) =>
      [`@${l.provenance.line} ${l.level ?? '-'} ${l.message.slice(0, 40)}`, l.fields.printedBy, l.fields.refused].filter(Boolean).join(' | '),
    ),
    skipped: r.load.skipped.map((s) => `${s.line ?? '-'} ${s.reason}`),
    findings: r.findings.map((f) => `${f.ruleId} ${f.object.kind} ${f.object.name}`),
    stated: r.run.notEvaluatedFor.filter((n) => n.stated).map((n) => `${n.ruleId}: ${n.reason.split(own).join('FILE')}`),
  };
}

describe('tickets with broken shapes', () => {
  it('describe conditions between fences broken by spaces are read as a partial Machine', async () => {
    const r = await read('broken-fence-machine.md', '2024-03-05T10:13:00Z');
    expect(r.objects).toEqual(['Machine (no name) (partial) @8']);
    expect(r.logs).toEqual(['@3 DEBUG terminating due to registration ttl']);
    expect(r.skipped).toEqual(['1 prose (4 paragraphs), not objects or logs']);
    // The describe block names no machine (the command is quoted in prose), so it is a second, unnamed Machine.
    expect(r.findings).toEqual(['nodeclaim-not-registered Machine ', 'nodeclaim-not-registered Machine batch-7kq2m']);
    expect(r.stated).toEqual([]);
  });

  it('two `...` lines in a row are one gap, not a duplicate key', async () => {
    const r = await read('eksctl-double-elision.md', '2026-02-01T00:00:00Z');
    expect(r.objects).toEqual(['ClusterConfig orchard (partial) @3', 'Provisioner general @15']);
    expect(r.skipped).toEqual(['1 prose (2 paragraphs), not objects or logs']);
    expect(r.findings).toEqual(['deprecated-karpenter-api Provisioner general', 'consolidation-disabled-for-underused-nodes Provisioner general']);
  });

  it('a console record in single backticks states no subnets matched: the node class finding names it', async () => {
    const r = await read('inline-console-no-subnets.md', '2023-05-14T08:10:00Z');
    expect(r.objects).toEqual([]);
    expect(r.logs).toEqual(['@5 ERROR creating scheduler, getting instance typ']);
    expect(r.skipped).toEqual(['1 prose (4 paragraphs), not objects or logs']);
    // The record names no Provisioner: the finding is of one whose name is not shown.
    expect(r.findings).toEqual(['nodeclass-not-ready Provisioner ']);
    expect(r.stated).toEqual([]);
  });

  it("kubectl's refusal of an apply shows the webhook's x509 failure as kubectl states it", async () => {
    const r = await read('apply-refused-webhook.md', '2026-02-01T00:00:00Z');
    expect(r.objects).toEqual([]);
    expect(r.logs).toEqual([
      '@4 ERROR Internal error occurred: failed calling  | kubectl | Error from server (InternalError): error when creating "provisioner.yaml"',
    ]);
    expect(r.skipped).toEqual(['1 prose (1 paragraph), not objects or logs']);
    expect(r.findings).toEqual([]);
    expect(r.stated).toEqual([
      WEBHOOK(
        'kubectl',
        'FILE:4',
        'Internal error occurred: failed calling webhook "validation.webhook.provisioners.karpenter.sh": failed to call webhook: Post "https://karpenter.karpenter.svc:443/?timeout=10s": x509: certificate sign…',
      ),
    ]);
  });

  it("a Terraform error box loses its frame and shows the webhook's x509 failure as Terraform states it", async () => {
    const r = await read('terraform-error-box.md', '2026-02-01T00:00:00Z');
    expect(r.objects).toEqual([]);
    expect(r.logs).toEqual([
      '@5 ERROR Internal error occurred: failed calling  | Terraform | Error: general failed to run apply: error when creating "/tmp/31415kubectl_manifest.yaml"',
    ]);
    // Terraform's `with …`/`on … line 12` lines under the error are its context, not objects or records.
    expect(r.skipped).toEqual(['1 prose (4 paragraphs), not objects or logs']);
    expect(r.findings).toEqual([]);
    expect(r.stated).toEqual([
      WEBHOOK(
        'Terraform',
        'FILE:5',
        'Internal error occurred: failed calling webhook "defaulting.webhook.karpenter.k8s.aws": failed to call webhook: Post "https://karpenter.kube-system.svc:8443/?timeout=10s": tls: failed to verify certi…',
      ),
    ]);
  });
});

function WEBHOOK(by: string, at: string, quoted: string): string {
  return (
    `karpenter-api-version-mismatch: ${by} states Karpenter's admission webhook fails (its certificate is not trusted, its Service has no ready endpoint, or a webhook configuration left by an older chart calls a controller that no longer serves it) (once, last at ${at}: "${quoted}"), a cause no catalog rule judges. ` +
    'Objects of Karpenter kinds cannot be created or updated while it fails. Check: kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations | grep karpenter ' +
    '(leftovers of an older chart point at a stale caBundle or Service: delete them), kubectl get secret -n <namespace> karpenter-cert, and the controller pods are Ready.'
  );
}
