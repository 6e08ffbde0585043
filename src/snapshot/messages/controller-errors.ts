/**
 * Errors of the controller that no rule judges but that state a cause plainly (docs/karpenter-behaviour.md §8.4, §9):
 * its admission webhook failing, the pricing API refused, STS out of reach. Each row has the wording that rules it
 * out, where a similar text is another mechanism's. The rows are vocabulary (kube/messages/controller-errors.ts).
 */
import { CONTROLLER_ERRORS, type ControllerError } from '../../kube/messages/controller-errors.js';

export { CONTROLLER_ERRORS, type ControllerError };

/** Texts that look like a row but are another mechanism's: the conversion webhook (a CRD mismatch), a refused role. */
const NOT: Partial<Record<ControllerError, RegExp>> = {
  'webhook-unreachable': /conversion webhook|webhook conversion|\/conver/i,
  'sts-unreachable': /\bAccessDenied\b/,
};

/** The row's wording and what rules it out, for a stated-cause table. */
export function controllerError(signal: ControllerError): { re: RegExp; unless?: (text: string) => boolean } {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === signal)!;
  const not = NOT[signal];
  return { re: row.re, ...(not ? { unless: (text: string) => not.test(text) } : {}) };
}

export interface ObjectRefusal {
  /** The refused object's kind and name, when the wording names them (the webhook's names neither). */
  kind?: string;
  name?: string;
  /** What the API server or webhook says is wrong, as it says it. */
  why: string;
}

/** The refusal of a Karpenter object a text states: which object and why, if it states one. */
export function objectRefusal(text: string): ObjectRefusal | undefined {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === 'object-refused')!;
  const m = row.re.exec(text);
  if (!m) return undefined;
  const why = text
    .slice(m.index + m[0].length)
    .replace(/\\"/g, '"')
    .trim();
  // The webhook's wording names no kind; ≤ v0.31 the provisioner's wrapping does ("launching machine, …").
  const kind = m[1] ?? (/\bmachine\b/i.test(text.slice(0, m.index)) ? 'Machine' : undefined);
  return { ...(kind ? { kind } : {}), ...(m[2] ? { name: m[2] } : {}), why };
}

/** The AWS endpoint a text says the controller could not reach, its service and region, and how the network failed. */
export function unreachableEndpoint(text: string): { host: string; service: string; region?: string; failure: string } | undefined {
  const row = CONTROLLER_ERRORS.find((r) => r.signal === 'aws-endpoint-unreachable')!;
  const m = row.re.exec(text.replace(/\\"/g, '"'));
  if (!m) return undefined;
  const host = m[1]!;
  const region = /\.([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d)\.amazonaws\.com/.exec(host)?.[1];
  return { host, service: m[2]!, ...(region ? { region } : {}), failure: m[3]! };
}

/**
 * A Karpenter frame of a panic's trace that resolves a pool's node class reference (v1beta1/v1 `nodeClassRef`, v1alpha5
 * `providerRef` / inline `provider`): `(*CloudProvider).resolveNodeClassFromNodePool`, `resolveNodeTemplate`, … A
 * pool without the reference panics there (a nil pointer), the first frame under `panic(` being Karpenter's own.
 */
export function nodeClassPanicFrame(stacktrace: string): string | undefined {
  const lines = stacktrace.split('\n').map((l) => l.trim());
  const karpenter = lines.filter((l) => /^(?:github\.com\/aws\/karpenter|sigs\.k8s\.io\/karpenter)[\w./-]*\.\S+\(/.test(l));
  const first = karpenter[0];
  if (!first) return undefined;
  const fn = /([\w.]+\.(?:\(\*?\w+\)\.)?\w+)\(/.exec(first.replace(/^.*\//, ''))?.[1];
  return fn && /NodeClass|NodeTemplate|ProviderRef|nodeClassRef|providerRef/.test(fn) ? fn : undefined;
}

/** The controller errors a text states. */
export function controllerErrorsIn(text: string): ControllerError[] {
  return CONTROLLER_ERRORS.filter((r) => r.re.test(text)).map((r) => r.signal);
}
