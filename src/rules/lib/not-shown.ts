/**
 * What a rule says of an object the input does not hold, worded by what the input is. A dump or a live cluster that
 * lists the kind proves absence (the rule judges it missing); a repository rarely holds everything (Terraform, add-ons
 * and the platform create much of what manifests name); a ticket shows what its writer chose to paste, so a name it
 * lacks is only not among those shown. Every "not in the input" line goes through here, so one input is never called
 * "the scanned files" by one rule and "the ticket" by another; the words themselves are snapshot/input-words.ts's.
 */
import { UNKNOWN_VALUE } from '../../kube/types.js';
import { isClusterScoped, kindPlural } from '../../kube/kinds.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { isPaste } from '../../snapshot/input-words.js';

/** `kubectl get ec2nodeclasses` (`-A` for a namespaced kind): the list that settles whether a name exists. */
export function listCommand(kind: string, kindKey?: string): string {
  const all = kindKey !== undefined && !isClusterScoped(kindKey) ? ' -A' : '';
  return `kubectl get ${kindPlural(kind).toLowerCase()}${all}`;
}

/**
 * Why the named object, which the input does not resolve, is not judged missing; undefined when the input shows the
 * kind's list (a dump, a live cluster, a ticket's pasted `kubectl get` list, a repository said to be complete), so
 * its absence is the rule's to judge.
 */
export function notShownReason(snapshot: Snapshot, kindKey: string, name: string): string | undefined {
  const kind = kindKey.split('/')[1]!;
  // A name filled in when applied (a template placeholder, a Terraform expression) cannot be looked for at all.
  if (name.includes(UNKNOWN_VALUE)) return `the ${kind}'s name is computed when applied, not known from the files`;
  const paste = isPaste(snapshot);
  const listed = snapshot.namesListed(kindKey);
  if (listed && (paste || snapshot.absentMeansMissing)) return undefined;
  if (!paste && !snapshot.absentMeansMissing)
    return `${kind} ${name} is not in the scanned files (created outside them, e.g. by Terraform or an add-on?); --assume-complete judges it as missing`;
  // A ticket's objects, or objects described or pasted one at a time in other files: those shown are not the kind's list.
  const where = paste ? 'the ticket' : 'the input';
  const shown = snapshot.all(kindKey).length;
  const command = `\`${listCommand(kind, kindKey)}\``;
  return shown
    ? `${kind} ${name} is not among the ${shown === 1 ? `one ${kind}` : `${shown} ${kindPlural(kind)}`} ${where} shows (not their list): ${command} shows whether it exists`
    : `no ${kind} is in ${where}: ${command} shows whether ${name} exists`;
}

/**
 * Why a workload's NodePools are not judged missing when none is deployed with it (a repository's folders, a ticket
 * that pastes no pool); undefined when the input shows the pools' list.
 */
export function noPoolShownReason(snapshot: Snapshot, runsOn = 'it runs on'): string | undefined {
  if (snapshot.absentMeansMissing) return undefined;
  if (isPaste(snapshot)) {
    const shown = snapshot.nodePools().length;
    const command = `\`${listCommand('NodePool')}\` shows the pools ${runsOn}`;
    return shown
      ? `none of the ${shown === 1 ? 'one NodePool' : `${shown} NodePools`} ${snapshot.inputName} shows is deployed with it: ${command}`
      : `no NodePool is in ${snapshot.inputName}: ${command}`;
  }
  return `no NodePool in the scanned files is deployed with it (none in its folder or the folders above; folders holding their own workloads and NodePools are other deployments): the pools ${runsOn} may be created elsewhere; --assume-complete judges them as missing`;
}
