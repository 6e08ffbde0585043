/**
 * Messages as data (as ESLint's `meta.messages` / `messageId` / `data`): a rule declares each wording once, as one
 * template with `{{name}}` placeholders, and reports an id and the values. The text is rendered here, once, so reports
 * and tests can key on the id and the values and the wording can change in one place.
 *
 * A template is one string. A clause that only some findings carry is a placeholder whose value is the clause or ''
 * (`'{{name}} is not ready{{since}}.'` with `since: ' since 2026-12-02T10:00Z'` or `since: ''`): the wording of the
 * clause lives at the report call, the position and the sentence around it here.
 *
 * A placeholder that holds an object's name is called `name`, ends in `Name` (`poolName`, `objectName`), or is the
 * bare word of a kind (`pool`, `node`, `claim`, `pod`, `pv`: NAME_PLACEHOLDERS): an empty value there is an object the
 * input does not name (a ticket's piece pasted without `metadata:`, an event row whose object was cut), and is
 * rendered here as NAME_NOT_SHOWN, so no rule prints an empty word where a name goes (test/name-placeholders.test.ts).
 */
import { NAME_NOT_SHOWN } from '../kube/fields.js';

/** A rule's messages by id. */
export type MessageTemplates = Readonly<Record<string, string>>;

/** The values of a message's placeholders. Numbers print as JavaScript prints them. */
export type MessageData = Readonly<Record<string, string | number>>;

/** The placeholder names of a template literal type: `Placeholders<'{{a}} and {{b}}'>` is `'a' | 'b'`. */
export type Placeholders<T extends string> = T extends `${string}{{${infer P}}}${infer Rest}` ? P | Placeholders<Rest> : never;

/** The `data` a message needs: exactly its placeholders (none → `data` may be left out); any for a template typed `string`. */
export type DataFor<T extends string> = string extends T
  ? { data?: MessageData }
  : [Placeholders<T>] extends [never]
    ? { data?: Readonly<Record<string, never>> }
    : { data: { readonly [P in Placeholders<T>]: string | number } };

/** One of the rule's declared messages, by id, with the values its placeholders need. */
export type MessageRef<M extends MessageTemplates> = {
  [K in keyof M & string]: { messageId: K; message?: never } & DataFor<M[K]>;
}[keyof M & string];

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g;

/** The placeholder names a template uses, in order of first use (SARIF numbers its arguments in this order). */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (!names.includes(m[1]!)) names.push(m[1]!);
  return names;
}

/** A message id the rule does not declare, or a placeholder without a value: a bug in the rule, never the input's fault. */
export class MessageError extends Error {}

/** The text of one message. Throws MessageError on an undeclared id or a missing placeholder. */
export function renderMessage(ruleId: string, templates: MessageTemplates | undefined, messageId: string, data: MessageData = {}): string {
  const template = templates && Object.hasOwn(templates, messageId) ? templates[messageId] : undefined;
  if (template === undefined) {
    const known = Object.keys(templates ?? {});
    throw new MessageError(`${ruleId}: no message "${messageId}" in meta.messages (declared: ${known.length ? known.join(', ') : 'none'})`);
  }
  return fillTemplate(ruleId, messageId, template, data);
}

/** Placeholders named after the kind whose name they hold (`NodePool {{pool}}`), besides `name` and `…Name`. */
const NAME_PLACEHOLDERS: ReadonlySet<string> = new Set([
  'pool',
  'nodePool',
  'node',
  'claim',
  'nodeClaim',
  'pod',
  'pv',
  'pvc',
  'provisioner',
  'machine',
  'nodeClass',
  'storageClass',
]);

/** Whether a placeholder holds an object's name, by the convention above. */
export function isNamePlaceholder(placeholder: string): boolean {
  return placeholder === 'name' || placeholder.endsWith('Name') || NAME_PLACEHOLDERS.has(placeholder);
}

/** A placeholder's value as text: an empty name (by the convention above) is the stand-in, in every report format. */
export function shownValue(placeholder: string, value: string | number): string {
  return value === '' && isNamePlaceholder(placeholder) ? NAME_NOT_SHOWN : String(value);
}

/** `{{name}}` → `data.name`; a placeholder without a value is the rule's bug. */
function fillTemplate(ruleId: string, messageId: string, template: string, data: MessageData): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = Object.hasOwn(data, name) ? data[name] : undefined;
    if (value === undefined || value === null) throw new MessageError(`${ruleId}: message "${messageId}" needs a value for {{${name}}}`);
    return shownValue(name, value);
  });
}
