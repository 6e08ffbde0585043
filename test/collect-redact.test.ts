/**
 * The secret-shape catalog, row by row: each sample loses its secret and keeps what the row says it keeps; text that
 * only resembles a secret (selectors, digests, `mkdir -p`, `httpTokens`) stays as it was; every pattern keeps the
 * discipline that makes it linear, and hostile text built from each row's own prefixes is redacted in one pass.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactText } from '../src/collect/redact-text.js';
import { SECRET_SHAPES, isCredentialName } from '../src/collect/secret-shapes.js';
import { SECRET_SAMPLES, planted } from './support/secret-samples.js';

describe('the secret-shape catalog', () => {
  describe.each(SECRET_SHAPES.map((s) => [s.id, s] as const))('%s', (id, shape) => {
    it.each((SECRET_SAMPLES[id] ?? []).map((s) => [s.text, planted(s, 'K7Q')] as const))('redacts %j', (_text, sample) => {
      const out = redactText(sample.text);
      expect(out).not.toContain(sample.secret);
      expect(out).toContain(REDACTED);
      if (sample.kept) expect(out).toContain(sample.kept);
      // Redacting twice changes nothing (a bundle read back and compared with a live read is redacted once more).
      expect(redactText(out)).toBe(out);
    });

    it('keeps the linear discipline: a leading look-behind or finder, no quantified group holding an unbounded quantifier', () => {
      if (!shape.pattern) return expect(shape.find).toBeTypeOf('function');
      const source = shape.pattern.source;
      expect(source).toMatch(/^\(\?<[!=]/);
      expect(shape.pattern.flags).toContain('d');
      const bare = source.replace(/\\./g, 'e').replace(/\[[^\]]*\]/g, 'c');
      expect(bare).not.toMatch(/\([^()]*(?:[*+]|\{\d+,\})[^()]*\)(?:[*+]|\{\d+,\})/);
    });
  });

  it.each([
    'key: karpenter.sh/capacity-type',
    'httpTokens: required',
    'secretName: orders-db-credentials',
    'tokenFile: /var/run/secrets/eks.amazonaws.com/serviceaccount/token',
    'NoCredentialProviders: no valid providers in chain',
    'basic authentication failed for the registry mirror',
    'token expired for user system:serviceaccount:kube-system:karpenter',
    '--authentication-token-webhook=true',
    'mkdir -p /var/lib/kubelet/plugins',
    'docker run -p 8080:80 registry.example/app',
    'find /var/log -name "*.gz" -print',
    'public.ecr.aws/karpenter/controller:1.4.0@sha256:' + '9f3c2a1b'.repeat(8),
    'aws:///us-west-2a/i-0a1b2c3d4e5f60718',
    'azure:///subscriptions/1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9/resourceGroups/MC_payments_prod_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/aks-system-31415926-vmss/virtualMachines/0',
    'checkout-api-worker-payment-processing-service-7f9c8d6b5-x2k9z',
    'controller/nodeclaim/lifecycle/Reconciler',
    'EC2A8D3F-1234-5678-9ABC-DEF012345678',
    'https://karpenter.kube-system.svc:8443/validate/karpenter.sh',
    'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox',
    'ssh://git@github.com/platform/nodepools.git',
    'https://ci-runner@git.example.org/platform/charts.git',
    'the password is required for the registry mirror',
    'the token was kube-system/karpenter',
    'secret is referenced by secretName orders-db-credentials',
    'https://console.example.com/ec2/home?region=us-west-2#Instances:instanceId=i-0a1b2c3d4e5f60718',
  ])('leaves %j as it was', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it('docs/collect-redaction.md describes every row', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'collect-redaction.md'), 'utf8');
    for (const shape of SECRET_SHAPES) expect(doc, shape.id).toContain(`| \`${shape.id}\` |`);
  });

  it.each([
    ['password', true],
    ['DB_PASSWORD', true],
    ['example.com/api-token', true],
    ['--db-pass', true],
    ['aws_access_key_id', true],
    ['AccountKey', true],
    ['client_secret', true],
    ['secretName', false],
    ['httpTokens', false],
    ['key', false],
    ['bypass', false],
    ['karpenter.sh/do-not-disrupt', false],
  ])('%s names a credential: %s', (name, yes) => {
    expect(isCredentialName(name)).toBe(yes);
  });

  // Quadratic matching on these would take minutes; linear takes milliseconds (the test's timeout is the bound).
  it.each([
    'eyJ'.repeat(100_000),
    'password'.repeat(40_000),
    'password: '.repeat(30_000),
    'x: '.repeat(100_000),
    'a://'.repeat(80_000),
    '-----BEGIN '.repeat(30_000),
    'AKIA'.repeat(80_000),
    'Ab1+'.repeat(80_000) + '!',
    '-p'.repeat(150_000),
    'Bearer '.repeat(50_000),
    'hooks.slack.com/services/'.repeat(12_000),
    'a://b:' + 'c@'.repeat(150_000),
    'https://' + 'a1'.repeat(150_000),
    '?key=&key='.repeat(50_000),
    'password is '.repeat(40_000),
  ])('hostile text of %#: one pass', (text) => {
    expect(redactText(text).length).toBeGreaterThan(0);
  });
});
