/**
 * Every message table karpdoctor reads, by mechanism: the rows a rule's signal can come from. docs/karpenter-behaviour.md
 * §8.6 lists each row with who prints it, in which generations, and its upstream source; `test/message-catalog.test.ts`
 * fails when a row is missing there.
 */
import { CLOUD_ERRORS } from '../../kube/messages/cloud-errors.js';
import { KARPENTER_EVENT_MESSAGES } from '../../kube/messages/karpenter-events.js';
import { API_MISMATCH } from './api-errors.js';
import type { MessageTable, Printed } from './classify.js';
import { INITIALIZATION } from './conditions.js';
import { BLOCKED } from './disruption-blocked.js';
import { MESSAGE, WITH_FIELDS } from './karpenter-logs.js';
import { EVENTS } from './object-events.js';
import { SCHEDULING } from './scheduling.js';

export interface CatalogRow {
  /** `table/signal`, or the cloud's code for cloud errors: how docs/karpenter-behaviour.md names the row. */
  id: string;
  printed: readonly Printed[];
  carries: readonly string[];
}

const rows = <T extends string>(table: string, t: MessageTable<T>): CatalogRow[] =>
  t.map((r) => ({ id: `${table}/${r.signal}`, printed: r.printed, carries: r.carries ?? [] }));

export function catalogRows(): CatalogRow[] {
  return [
    ...rows('log-message', MESSAGE),
    ...rows('log-text', WITH_FIELDS),
    ...rows('karpenter-event', KARPENTER_EVENT_MESSAGES),
    ...rows('object-event', EVENTS),
    ...rows('disruption-blocked', BLOCKED),
    ...rows('scheduling', SCHEDULING),
    ...rows('condition', INITIALIZATION),
    ...rows('api-mismatch', API_MISMATCH),
    ...CLOUD_ERRORS.map((r) => ({ id: `cloud/${r.code}`, printed: ['cloud'] as const, carries: r.carries })),
  ];
}
