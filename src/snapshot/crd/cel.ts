/**
 * CEL for `x-kubernetes-validations`: @bufbuild/cel (conformance-tested against cel-spec) plus the Kubernetes library
 * functions CRDs use that standard CEL lacks. An expression that does not compile or cannot be evaluated here yields
 * `undefined` (not evaluated): a rule we cannot run never turns into a rejection.
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
