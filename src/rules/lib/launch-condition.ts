import { conditions, dig, str } from '../../kube/fields.js';
import { KIND } from '../../kube/kinds.js';
import type { Snapshot } from '../../snapshot/snapshot.js';

/** A NodeClaim (or v1alpha5 Machine) whose Launched condition states why the launch did not start. */
export interface StatedLaunch {
  /** "NodeClaim default-x2k9p", or "a NodeClaim whose name the input does not show" for a cut describe. */
  who: string;
  /** The node class it references, when the input shows it. */
  nodeClass?: string;
  /** `Launched=False LaunchFailed "…"`. */
  condition: string;
}

/**
 * Launched conditions whose message matches `re` ("resolving ec2nodeclass, object is awaiting reconciliation", "… not
 * found"): the controller's own words on the node class, read from the claim when the node class is not in the input.
 */
export function statedLaunchFailures(snapshot: Snapshot, re: RegExp): StatedLaunch[] {
  const out: StatedLaunch[] = [];
  for (const claim of [...snapshot.all(KIND.NodeClaim), ...snapshot.all(KIND.Machine)]) {
    const launched = conditions(claim).find((c) => c.type === 'Launched' || c.type === 'MachineLaunched');
    if (!launched || launched.status === 'True' || !re.test(launched.message ?? '')) continue;
    const name = claim.metadata.name;
    const nodeClass = str(dig(claim, 'spec', 'nodeClassRef', 'name'));
    out.push({
      who: name ? `${claim.kind} ${name}` : `a ${claim.kind} whose name the input does not show`,
      ...(nodeClass ? { nodeClass } : {}),
      condition: `${launched.type}=${launched.status}${launched.reason ? ` ${launched.reason}` : ''} "${launched.message}"`,
    });
  }
  return out;
}
