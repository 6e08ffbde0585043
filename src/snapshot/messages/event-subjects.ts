/**
 * Which kind of object an event is about, when the paste cut the column or heading that named it: the table lives in
 * kube/messages/event-subjects.ts, beside the reasons readers need to know a row is an event (loaders cannot import
 * the snapshot); the judgement is here.
 */
import { EVENT_SUBJECTS, type SubjectRow } from '../../kube/messages/event-subjects.js';

export { EVENT_SUBJECTS };

/**
 * The kind an event of this reason, source and message is recorded on, when only one kind fits. A source the paste
 * does not show (`kubectl get events` prints none) matches every emitter of the reason: they must agree.
 */
export function subjectKind(reason: string, from: string, message: string): SubjectRow | undefined {
  const kinds = EVENT_SUBJECTS.filter((r) => r.reason === reason && (from === '' || r.from.test(from)) && (!r.re || r.re.test(message.trim())));
  return kinds.length && kinds.every((r) => r.kind === kinds[0]!.kind) ? kinds[0] : undefined;
}
