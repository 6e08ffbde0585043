/**
 * What a line says of something the input does not hold, worded by what the input is. A dump or a live cluster was
 * read whole, so a kind it lacks is absent from it; a repository holds what its authors wrote, so what is not there is
 * only "not in the scanned files"; a ticket shows what its writer chose to paste, so a kind it lacks is only not shown,
 * and the command that would settle it is the point. One module, so no line calls a ticket "the snapshot" and no
 * line calls a dump's absence a mere "not shown". The engine (a rule that cannot run) and the rules (rules/lib/
 * not-shown.ts) both word it here.
 */
import { INPUTS, type InputName } from '../kube/kinds.js';

/** Only what the wording needs: what the input is, as snapshot.inputName says it. */
interface Named {
  readonly inputName: 'the ticket' | 'the repository' | 'the dump' | 'the cluster' | 'the input';
}

/**
 * A pasted ticket scanned alone. A ticket scanned with other files ("the input": a repository whose README reads as a
 * paste, a dump beside a ticket) is judged as those files are, so a repository never loses "not in the scanned files".
 */
export function isPaste(snapshot: Named): boolean {
  return snapshot.inputName === 'the ticket';
}

/**
 * The input holds none of `what`: "the ticket shows no Pods" (not pasted, not proven absent), "the scanned files hold no
 * Pods", "the dump contains no Pods" (read whole: absent), "the cluster has no Pods".
 */
export function noneIn(snapshot: Named, what: string): string {
  switch (snapshot.inputName) {
    case 'the ticket':
      return `the ticket shows no ${what}`;
    case 'the repository':
      return `the scanned files hold no ${what}`;
    case 'the cluster':
      return `the cluster has no ${what}`;
    default:
      return `${snapshot.inputName} contains no ${what}`;
  }
}

/**
 * Why a rule could not run: the inputs it needs are not in the input. `joiner` is `or` when any one of them would do.
 * "the ticket shows no Pods — `kubectl get pods -A -o yaml` would settle it"; "the dump contains no Pods (add …)".
 */
export function missingInputsText(snapshot: Named, missing: readonly InputName[], joiner: 'and' | 'or' = 'and'): string {
  const none = noneIn(snapshot, missing.map((m) => INPUTS[m].plural).join(` ${joiner} `));
  const how = missing.map((m) => `\`${INPUTS[m].collect}\``).join(', ');
  return isPaste(snapshot) ? `${none} — ${how} would settle it` : `${none} (add the output of ${how})`;
}

/**
 * Where the objects a line counted are: "the ticket shows" for a paste (what was shown, not the kind's list), else the
 * place they were read from ("in the dump", "in the scanned files", "in the cluster", "in the input").
 */
export function heldIn(snapshot: Named): string {
  switch (snapshot.inputName) {
    case 'the ticket':
      return 'the ticket shows';
    case 'the repository':
      return 'in the scanned files';
    default:
      return `in ${snapshot.inputName}`;
  }
}

/** "the ticket lists" (what was pasted), "the dump has", "the scanned files hold": who holds the objects a verdict counted. */
export function holderWords(snapshot: Named): string {
  switch (snapshot.inputName) {
    case 'the ticket':
      return 'the ticket lists';
    case 'the repository':
      return 'the scanned files hold';
    default:
      return `${snapshot.inputName} has`;
  }
}
