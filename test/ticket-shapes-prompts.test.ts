/**
 * Shell prompts are recognised by their parts (labels, a body, the mark that ends it), so a prompt theme nobody listed
 * still types the output under it. Each case is a prompt as some shell or theme prints it.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../src/loaders/readers/ticket/command.js';

const typed = (line: string) => {
  const c = parseCommand(line);
  return c && { verb: c.verb, kind: c.output.kind, name: c.output.name, namespace: c.output.namespace, format: c.format };
};

describe('shell prompts by pattern', () => {
  it.each([
    ['an environment label, user@host and a path', '[staging] deploy@jump-01 ~/clusters/eu $ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['a kube context label and a colon path', '[ctx:eks-blue] ana@ws-14:~/src/platform$ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['a conda env and a zsh %', '(base) mchen@MacBook-Pro ~ % kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['a virtualenv over a bash prompt', '(.venv) tools@ci-runner:/workspace# kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['two labels then a bare mark', '(venv) [prod] $ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['fish: user@host path>', 'sre@laptop ~/k8s> kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['a bare path with $', '~/infra/karpenter $ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['PowerShell in a deep directory', 'PS C:\\Users\\ops\\Documents\\eks> kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['oh-my-zsh with a git branch and a dirty mark', '➜  karpenter-config git:(main) ✗ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['oh-my-zsh in a conda env', '(base) ➜  ~ kubectl get nodeclaim batch-q7wzt -o yaml'],
    ['RHEL bash in brackets', '[ec2-user@ip-10-0-3-21 ~]$ kubectl get nodeclaim batch-q7wzt -o yaml'],
  ])('%s', (_, line) => {
    expect(typed(line)).toEqual({ verb: 'get', kind: 'NodeClaim', name: 'batch-q7wzt', namespace: undefined, format: 'yaml' });
  });

  it('prose that mentions kubectl after a label or a path is no command line', () => {
    expect(typed('[note] we ran kubectl get nodeclaims and saw nothing')).toBeNull();
    expect(typed('~/infra is where kubectl get nodes was run')).toBeNull();
    expect(typed('(see below) kubectl get nodeclaims')).toBeNull();
  });
});
