/**
 * Every message table karpdoctor reads, by mechanism: the rows a rule's signal can come from. docs/karpenter-behaviour.md
 * §8.6 lists each row with who prints it, in which generations, and its upstream source; `test/message-catalog.test.ts`
 * fails when a row is missing there.
 */
import { CLOUD_ERRORS, classifyCloudError } from '../../kube/messages/cloud-errors.js';
import { ERROR_CHAINS } from '../../kube/messages/karpenter-errors.js';
import { KARPENTER_EVENT_MESSAGES } from '../../kube/messages/karpenter-events.js';
import { APPLY_REFUSALS } from '../../kube/messages/api-refusals.js';
import { API_MISMATCH } from './api-errors.js';
import type { MessageTable, Printed } from './classify.js';
import { INITIALIZATION } from './conditions.js';
import { CONTROLLER_ERRORS } from './controller-errors.js';
import { BLOCKED } from './disruption-blocked.js';
import { MESSAGE, WITH_FIELDS } from './karpenter-logs.js';
import { NODECLASS_ERRORS } from './nodeclass-errors.js';
import { EVENTS } from './object-events.js';
import { EVENT_SUBJECTS } from './event-subjects.js';
import { CLAUSES } from './schedule-error.js';
import { SCHEDULING } from './scheduling.js';

export interface CatalogRow {
  /** `table/signal`, or `cloud/<code>`: how docs/karpenter-behaviour.md names the row. */
  id: string;
  printed: readonly Printed[];
  carries: readonly string[];
  /** The wording (its pattern's text). */
  wording: string;
  /** The message quoted alone, where the row has one (MessageRow.example). */
  example?: string;
  /** Why the row's message is never read quoted alone (MessageRow.neverAlone). */
  neverAlone?: string;
  /** The row's pattern recognises the text. */
  matches(text: string): boolean;
}

const rows = <T extends string>(table: string, t: MessageTable<T>): CatalogRow[] =>
  t.map((r) => ({
    id: `${table}/${r.signal}`,
    printed: r.printed,
    carries: r.carries ?? [],
    wording: r.re.source,
    ...(r.example ? { example: r.example } : {}),
    ...(r.neverAlone ? { neverAlone: r.neverAlone } : {}),
    matches: (text: string) => r.re.test(text),
  }));

export function catalogRows(): CatalogRow[] {
  return [
    ...rows('log-message', MESSAGE),
    ...rows('log-text', WITH_FIELDS),
    ...rows('error-chain', ERROR_CHAINS),
    ...rows('karpenter-event', KARPENTER_EVENT_MESSAGES),
    ...rows('object-event', EVENTS),
    ...rows('disruption-blocked', BLOCKED),
    ...rows('scheduling', SCHEDULING),
    ...rows('schedule-clause', CLAUSES),
    ...rows('nodeclass-error', NODECLASS_ERRORS),
    ...rows('controller-error', CONTROLLER_ERRORS),
    ...rows('condition', INITIALIZATION),
    ...rows('api-mismatch', API_MISMATCH),
    ...rows('apply-refusal', APPLY_REFUSALS),
    ...EVENT_SUBJECTS.map((r) => ({
      id: `event-subject/${r.reason}.${r.kind}.${r.printed[0]!}`,
      printed: r.printed,
      carries: [],
      wording: `${r.reason} from ${r.from.source}${r.re ? `: ${r.re.source}` : ''}`,
      matches: (text: string) => !r.re || r.re.test(text),
    })),
    ...CLOUD_ERRORS.map((r) => ({
      id: `cloud/${r.code}`,
      printed: ['cloud'] as const,
      carries: r.carries,
      wording: r.re.source,
      ...(r.example ? { example: r.example } : {}),
      // A code's text is read as that code only when no more specific row claims it (classifyCloudError).
      matches: (text: string) => classifyCloudError(text).some((c) => c.code === r.code),
    })),
  ];
}
