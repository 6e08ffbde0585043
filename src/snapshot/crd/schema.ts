/**
 * What the API server does with a custom resource on create, against its CRD's structural schema: drop nulls and
 * unknown fields (pruning — never a rejection), apply defaults, then validate the OpenAPI v3 keywords and the
 * `x-kubernetes-validations` CEL rules. Only what the server would refuse is a violation; what we cannot judge (a rule
 * we cannot evaluate, a value templated by Helm or Terraform) is listed as unjudged, never guessed.
 */
import { re2 } from './re2.js';
import type { CelInput } from '@bufbuild/cel';
import { UNKNOWN_VALUE } from '../../kube/types.js';
import { isRecord, pointer as toPointer } from '../../kube/fields.js';
import { evaluate, isTransitionRule } from './cel.js';

export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
  optionalOldSelf?: boolean;
}

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-validations'?: CelRule[];
  'x-kubernetes-list-type'?: string;
}

export interface Violation {
  /** JSON pointer into the object as written (a defaulted field points where it would be). */
  pointer: string;
  /** The field as the API server names it: `spec.template.spec.requirements[0].operator`. */
  field: string;
  /** The server's wording after the field: `Unsupported value: "Equals": supported values: …`. */
  detail: string;
  /** The CRD's own message, for a CEL rule. */
  crdMessage?: string;
  rule?: string;
}

export interface Unjudged {
  field: string;
  rule: string;
  why: string;
}

export interface Verdict {
  violations: Violation[];
  unjudged: Unjudged[];
}

/**
 * Values a renderer has not filled in yet (Helm, Terraform): unknown, so never judged. A repository's `${…}` and
 * Terraform's computed values reach here as UNKNOWN_VALUE (snapshot/placeholders.ts, readers/terraform.ts).
 */
const TEMPLATED = /\$\{|\{\{/;

/** Validate one object (without `metadata`/`status`, which the server handles apart) against its version's schema. */
export function validate(object: Record<string, unknown>, root: Schema): Verdict {
  const verdict: Verdict = { violations: [], unjudged: [] };
  const prepared = prepare(object, root, true) as Record<string, unknown>;
  walk(prepared, root, [], verdict, true);
  return verdict;
}

/** Nulls of non-nullable fields and unknown fields are dropped, defaults filled in: what the server stores. */
function prepare(value: unknown, schema: Schema | undefined, atRoot = false): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) return value.map((v) => prepare(v, schema.items));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  const props = schema.properties;
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const keepUnknown = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true || (!props && !extra);
  for (const [k, v] of Object.entries(value)) {
    if (atRoot && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) {
      out[k] = v;
      continue;
    }
    const sub = props?.[k] ?? extra;
    if (!sub && !keepUnknown) continue;
    if (v === null && !(sub?.nullable ?? false)) continue;
    out[k] = prepare(v, sub);
  }
  for (const [k, sub] of Object.entries(props ?? {})) {
    if (out[k] === undefined && sub.default !== undefined) out[k] = prepare(structuredClone(sub.default), sub);
  }
  return out;
}

function fieldName(path: Array<string | number>): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : /^[A-Za-z0-9_-]+$/.test(p) || s === '' ? `${s ? '.' : ''}${p}` : `[${p}]`;
  return s || '<root>';
}

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v === 'object' ? 'object' : typeof v;
}

function typeMatches(type: string, v: unknown): boolean {
  const t = typeOf(v);
  return t === type || (type === 'number' && t === 'integer');
}

const quote = (v: unknown) => JSON.stringify(v);

function walk(value: unknown, schema: Schema, path: Array<string | number>, verdict: Verdict, atRoot = false): void {
  const field = fieldName(path);
  const bad = (detail: string, at: Array<string | number> = path): void => {
    verdict.violations.push({ pointer: toPointer(...at), field: fieldName(at), detail });
  };
  if (typeof value === 'string' && TEMPLATED.test(value)) return;
  if (schema['x-kubernetes-int-or-string']) {
    if (typeOf(value) !== 'integer' && typeof value !== 'string')
      return bad(`Invalid value: ${quote(typeOf(value))}: ${field} in body must be of type integer or string: ${quote(typeOf(value))}`);
  } else if (schema.type && value !== null && !typeMatches(schema.type, value)) {
    return bad(`Invalid value: ${quote(typeOf(value))}: ${field} in body must be of type ${schema.type}: ${quote(typeOf(value))}`);
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) {
    bad(`Unsupported value: ${quote(value)}: supported values: ${schema.enum.map(quote).join(', ')}`);
  }
  if (typeof value === 'string') checkString(value, schema, field, bad);
  if (typeof value === 'number') checkNumber(value, schema, field, bad);
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) bad(`Too many: ${value.length}: must have at most ${schema.maxItems} items`);
    if (schema.minItems !== undefined && value.length < schema.minItems)
      bad(`Invalid value: ${value.length}: ${field} in body should have at least ${schema.minItems} items`);
    if (schema['x-kubernetes-list-type'] === 'set') {
      value.forEach((v, i) => {
        if (value.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) < i) bad(`Duplicate value: ${quote(v)}`, [...path, i]);
      });
    }
    if (schema.items) value.forEach((v, i) => walk(v, schema.items!, [...path, i], verdict));
  }
  if (isRecord(value)) {
    const n = Object.keys(value).length;
    if (schema.maxProperties !== undefined && n > schema.maxProperties) bad(`Too many: ${n}: must have at most ${schema.maxProperties} items`);
    if (schema.minProperties !== undefined && n < schema.minProperties)
      bad(`Invalid value: ${n}: ${field} in body should have at least ${schema.minProperties} properties`);
    for (const r of schema.required ?? []) if (value[r] === undefined) bad('Required value', [...path, r]);
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value)) {
      if (atRoot && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
      const sub = schema.properties?.[k] ?? extra;
      if (sub && v !== undefined) walk(v, sub, [...path, k], verdict);
    }
  }
  for (const rule of schema['x-kubernetes-validations'] ?? []) celRule(value, schema, rule, path, verdict, atRoot);
}

function checkString(value: string, schema: Schema, field: string, bad: (d: string) => void): void {
  // The server counts characters (runes), not UTF-16 units.
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) bad(`Too long: may not be more than ${schema.maxLength} bytes`);
  if (schema.minLength !== undefined && length < schema.minLength)
    bad(`Invalid value: ${quote(value)}: ${field} in body should be at least ${schema.minLength} chars long`);
  if (schema.pattern !== undefined) {
    const matches = patternTest(schema.pattern, value);
    if (matches === false) bad(`Invalid value: ${quote(value)}: ${field} in body should match '${schema.pattern}'`);
  }
  // The server's parser also takes local times and compact offsets: only what none of its layouts read is refused.
  if (schema.format === 'date-time' && !/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/.test(value)) {
    bad(`Invalid value: ${quote(value)}: ${field} in body must be of type date-time: ${quote(value)}`);
  }
}

function checkNumber(value: number, schema: Schema, field: string, bad: (d: string) => void): void {
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
    bad(`Invalid value: ${value}: ${field} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`);
  }
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
    bad(`Invalid value: ${value}: ${field} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`);
  }
}

/** `pattern` is an unanchored RE2 search, as Go's regexp does it; a pattern RE2 cannot compile judges nothing. */
function patternTest(pattern: string, value: string): boolean | undefined {
  const re = re2(pattern);
  return re instanceof Error ? undefined : re.matcher(value).find();
}

/** The value as CEL sees it: integers as int, maps and objects as maps. */
function toCel(value: unknown, schema: Schema | undefined): CelInput {
  if (Array.isArray(value)) return value.map((v) => toCel(v, schema?.items));
  if (isRecord(value)) {
    const extra = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v, schema?.properties?.[k] ?? extra)]));
  }
  if (typeof value === 'number' && Number.isInteger(value) && schema?.type !== 'number') return BigInt(value);
  return value as CelInput;
}

function hasTemplated(value: unknown): boolean {
  if (typeof value === 'string') return TEMPLATED.test(value) || value.includes(UNKNOWN_VALUE);
  if (Array.isArray(value)) return value.some(hasTemplated);
  if (isRecord(value)) return Object.values(value).some(hasTemplated);
  return false;
}

const REASONS: Record<string, string> = {
  FieldValueForbidden: 'Forbidden',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
};

function celRule(value: unknown, schema: Schema, rule: CelRule, path: Array<string | number>, verdict: Verdict, atRoot: boolean): void {
  const field = fieldName(path);
  if (isTransitionRule(rule.rule)) return; // compares with the stored object: skipped when one is created
  if (hasTemplated(value)) return void verdict.unjudged.push({ field, rule: rule.rule, why: 'a value is not rendered yet (template)' });
  const bound = atRoot && isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'status')) : value;
  const out = evaluate(rule.rule, toCel(bound, schema));
  if ('error' in out) return void verdict.unjudged.push({ field, rule: rule.rule, why: out.error });
  if ('failed' in out) {
    // The API server: field.Invalid(path, schema type, "<error> evaluating rule: <message or rule>").
    const message = (rule.message ?? rule.rule).trim();
    const culprits = failingItems(rule.rule, bound, schema);
    const detail = `Invalid value: ${quote(schema.type ?? typeOf(value))}: ${out.failed} evaluating rule: ${message}`;
    const at = culprits.length ? culprits.map((c) => [...path, c]) : [path];
    for (const p of at) verdict.violations.push({ pointer: toPointer(...p), field, detail, crdMessage: `${message} (${out.failed})`, rule: rule.rule });
    return;
  }
  if (out.value === true) return;
  if (out.value !== false) return void verdict.unjudged.push({ field, rule: rule.rule, why: `evaluates to ${String(out.value)}, not a bool` });
  let message = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression) {
    const m = evaluate(rule.messageExpression, toCel(bound, schema));
    if ('value' in m && typeof m.value === 'string' && m.value.trim() !== '') message = m.value;
  }
  const reason = rule.reason ? REASONS[rule.reason] : undefined;
  const detail = reason ? `${reason}: ${message}` : `Invalid value: ${quote(typeOf(value))}: ${message}`;
  // The server names the list; the line to edit is the element that breaks the rule on its own, when there is one.
  const culprits = rule.fieldPath ? [] : failingItems(rule.rule, bound, schema);
  const targets = culprits.length ? culprits.map((c) => [...path, c]) : [[...path, ...fieldPathParts(rule.fieldPath)]];
  for (const at of targets)
    verdict.violations.push({ pointer: toPointer(...at), field: fieldName(culprits.length ? path : at), detail, crdMessage: message, rule: rule.rule });
}

/** Elements (or map keys) of a list or map for which the rule fails when they are alone. */
function failingItems(expr: string, value: unknown, schema: Schema): Array<string | number> {
  const fails = (v: unknown) => {
    const out = evaluate(expr, toCel(v, schema));
    return 'failed' in out || ('value' in out && out.value === false);
  };
  if (Array.isArray(value)) return value.length > 1 ? value.map((_, i) => i).filter((i) => fails([value[i]])) : [];
  if (isRecord(value) && schema.additionalProperties) {
    const keys = Object.keys(value);
    return keys.length > 1 ? keys.filter((k) => fails({ [k]: value[k] })) : [];
  }
  return [];
}

/** `.spec.foo['bar'][0]` → ['spec', 'foo', 'bar', 0]. */
function fieldPathParts(fieldPath: string | undefined): Array<string | number> {
  if (!fieldPath) return [];
  const parts: Array<string | number> = [];
  for (const m of fieldPath.matchAll(/\.([^.[\]]+)|\['([^']*)'\]|\[(\d+)\]/g)) parts.push(m[1] ?? m[2] ?? Number(m[3]));
  return parts;
}
