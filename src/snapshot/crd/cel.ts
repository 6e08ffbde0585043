/**
 * CEL for `x-kubernetes-validations`: @bufbuild/cel (conformance-tested against cel-spec) plus the Kubernetes library
 * functions CRDs use that standard CEL lacks. An expression that does not compile or needs what this library lacks is
 * not evaluated (a rule we cannot run never turns into a rejection); one that errors as it would in the API server
 * (`no such key`, a failed `int()`) is a rejection, as the server makes it.
 */
import { celEnv, celMethod, CelScalar, isCelError, listType, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { re2, re2FindAll } from './re2.js';

function compiledOrThrow(pattern: string) {
  const re = re2(pattern);
  if (re instanceof Error) throw re;
  return re;
}

/** The Kubernetes regex library (`find`, `findAll`) and CEL's own `matches`, all on RE2 (see re2.ts). */
const K8S_FUNCS = [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern: string) {
    return re2FindAll(compiledOrThrow(pattern), this, 1)[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern: string) {
    return re2FindAll(compiledOrThrow(pattern), this);
  }),
];

const ENV = celEnv({
  funcs: [...strings, ...K8S_FUNCS],
  re2: { compile: (pattern) => ({ test: (text) => compiledOrThrow(pattern).matcher(text).find() }) },
});

type Program = (bindings: Record<string, CelInput>) => unknown;
const programs = new Map<string, Program | Error>();

/** Compile once per expression text (every object of a kind shares the CRD's rules). */
function compile(expr: string): Program | Error {
  let p = programs.get(expr);
  if (!p) {
    try {
      p = plan(ENV, parse(expr)) as Program;
    } catch (e) {
      p = e instanceof Error ? e : new Error(String(e));
    }
    programs.set(expr, p);
  }
  return p;
}

/**
 * `error`: the expression could not be judged here. `failed`: it ran and failed as it would in the API server (a
 * missing key, a bad conversion, an index out of range), which refuses the object — in the server's wording.
 */
export type CelOutcome = { value: CelValue } | { error: string } | { failed: string };

/** Evaluate `expr` with `self` bound. */
export function evaluate(expr: string, self: CelInput): CelOutcome {
  const program = compile(expr);
  if (program instanceof Error) return { error: `does not compile: ${program.message}` };
  try {
    const out = program({ self });
    if (isCelError(out)) return asServerError(out.message);
    return { value: out as CelValue };
  } catch (e) {
    return asServerError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * Runtime errors cel-go raises as well, reworded as cel-go words them (the API server quotes them); anything else
 * (an unbound function, an overload this library lacks) is ours, and leaves the rule unjudged.
 */
const SERVER_ERRORS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^field not found: (.+)$/, (m) => `no such key: ${m[1]}`],
  [/^index (-?\d+) out of bounds \[0, (-?\d+)\)$/, (m) => `index '${m[1]}' out of range in list size '${Math.max(Number(m[2]), 0)}'`],
  [/^Cannot convert (.*) to a BigInt$/, (m) => `strconv.ParseInt: parsing ${JSON.stringify(m[1])}: invalid syntax`],
  [/divide by zero/, () => 'division by zero'],
  [/modulus by zero|modulo by zero/, () => 'modulus by zero'],
  [/overflow/, () => 'integer overflow'],
];

function asServerError(message: string): CelOutcome {
  for (const [re, word] of SERVER_ERRORS) {
    const m = message.match(re);
    if (m) return { failed: word(m) };
  }
  return { error: message };
}

/** A transition rule (compares with the stored object): it does not run when an object is created. */
export function isTransitionRule(expr: string): boolean {
  return /\boldSelf\b/.test(expr);
}
