// A cluster's own ValidatingAdmissionPolicies, bound at the edge, evaluated
// as the apiserver evaluates them (k8s.io/apiserver policy/validating and
// plugin/cel), one step a folder:
//   compile/     the bound policies' expressions, once per snapshot
//   dispatcher/  per request: the policies whose rules can select it, each
//                through matching → params → validator → validationActions
//   match/       matchConstraints and matchResources against a request
//   params/      CollectParams: a binding's params
//   validator/   matchConditions → validations → audit annotations
//   schema/      the objects, as zod reads them
// A policy's own failures (a configuration error, an expression that does
// not compile or fails) follow its failurePolicy inside the decision.
import { compilePolicies, type AdmissionPolicySources } from "./compile/index.js";
import { PolicyDispatcher, type CompiledPolicySet } from "./dispatcher/index.js";

export * from "./schema/index.js";
export { VARIABLES, type AdmissionPolicySources } from "./compile/index.js";
export type { CompiledPolicySet, PolicyFacts, PolicyOutcome, PolicySetOutcome } from "./dispatcher/index.js";
export { ReviewSession } from "./budget/index.js";

/** Compiles the policies that have at least one binding; reports every problem found on the way. */
export function compilePolicySet(sources: AdmissionPolicySources): CompiledPolicySet {
  const { policies, problems } = compilePolicies(sources);
  return new PolicyDispatcher(policies, problems);
}

/** The snapshot fields a policy set is compiled from. */
interface AdmissionPolicySnapshot {
  validatingAdmissionPolicies: Readonly<Record<string, unknown>>;
  policyBindings: Readonly<Record<string, unknown>>;
  kubernetesVersion?: string | undefined;
}

const compiledSets = new WeakMap<object, CompiledPolicySet>();

/** The snapshot's policy set, compiled on first use and kept as long as the snapshot (or its cluster-wide part) is. */
export function policySetOf(snapshot: AdmissionPolicySnapshot): CompiledPolicySet {
  let set = compiledSets.get(snapshot);
  if (!set) {
    set = compilePolicySet({ policies: snapshot.validatingAdmissionPolicies, bindings: snapshot.policyBindings, kubernetesVersion: snapshot.kubernetesVersion });
    compiledSets.set(snapshot, set);
  }
  return set;
}
