/**
 * CEL for `x-kubernetes-validations`: @bufbuild/cel (conformance-tested against cel-spec) plus the Kubernetes library
 * functions CRDs use that standard CEL lacks. An expression that does not compile or cannot be evaluated here yields
 * `undefined` (not evaluated): a rule we cannot run never turns into a rejection.
 */
import { celEnv, celMethod, CelScalar, isCelError, listType, parse, plan, type CelInput, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from '@bufbuild/re2';

/**
 * The Kubernetes regex library (`find`, `findAll`): RE2 syntax is checked by RE2 itself (the API server compiles with
 * Go's regexp), the match is taken with the JS engine, which agrees with RE2 on every pattern RE2 accepts that has no
 * look-around or back-reference — both rejected by the RE2 compile first.
 */
const compiled = new Map<string, RegExp | Error>();
function regex(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    try {
      RE2JS.compile(pattern);
      re = new RegExp(pattern, 'u');
    } catch (e) {
      re = e instanceof Error ? e : new Error(String(e));
    }
    compiled.set(pattern, re);
  }
  if (re instanceof Error) throw re;
  return re;
}

const K8S_FUNCS = [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern: string) {
    return regex(pattern).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern: string) {
    return [...this.matchAll(new RegExp(regex(pattern).source, 'gu'))].map((m) => m[0]);
  }),
];

const ENV = celEnv({ funcs: [...strings, ...K8S_FUNCS] });

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

export type CelOutcome = { value: CelValue } | { error: string };

/** Evaluate `expr` with `self` bound; an error says why it could not be judged. */
export function evaluate(expr: string, self: CelInput): CelOutcome {
  const program = compile(expr);
  if (program instanceof Error) return { error: `does not compile: ${program.message}` };
  try {
    const out = program({ self });
    if (isCelError(out)) return { error: out.message };
    return { value: out as CelValue };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** A transition rule (compares with the stored object): it does not run when an object is created. */
export function isTransitionRule(expr: string): boolean {
  return /\boldSelf\b/.test(expr);
}
