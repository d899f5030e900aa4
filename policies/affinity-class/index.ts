// AffinityClass: every node a pod of an application may run on is allowed by
// its class (the class's nodeSelector AND any one of its required nodeAffinity
// terms; shared/k8s/nodeaffinity decides, soundly). Judged on Pod CREATE and,
// shift-left, on the workloads that will create those pods, so the error shows
// on `kubectl apply`/`helm upgrade`. As in the CozyStack draft's
// validateAffinity, only an application whose HelmRelease carries the
// apps.cozystack.io/affinity-class label is judged: the tenant's default is
// written into that label when the application is created. A pod (or
// workload) of an application without the label in a tenant with a default
// is allowed, with a warning saying it was not judged against the default.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import { describeObject, isWorkloadKind, workloadOf, type Workload } from "../../shared/k8s/workload/index.js";
import {
  compilePlacement,
  describeConjunction,
  describePlacement,
  describeRequirement,
  placementOf,
  requiredTermsOf,
  termsOutside,
  type CompiledPlacement,
  type NodeLabels,
} from "../../shared/k8s/nodeaffinity/index.js";
import {
  FLUX_HELMRELEASE_NAME_LABEL,
  FLUX_HELMRELEASE_NAMESPACE_LABEL,
  lineageOf,
  type ResolvedApplication,
  type SnapshotView,
} from "../../shared/snapshot/view.js";
import { listed, MAX_NAME, MAX_QUOTED } from "../../shared/text/index.js";

export const id = "affinity-class";

function judged(request: AdmissionRequest): boolean {
  if (request.kind.kind === "Pod") return request.operation === "CREATE" && request.kind.group === "" && !request.subResource;
  return isWorkloadKind(request.kind.kind) && (request.operation === "CREATE" || request.operation === "UPDATE") && !request.subResource;
}

/** The application a workload's pods belong to: lineage labels first, then Flux's HelmRelease label. */
function applicationOf(workload: Workload, namespace: string, view: SnapshotView): ResolvedApplication | undefined {
  for (const labels of [workload.podMetadata.labels, workload.metadata.labels]) {
    const lineage = lineageOf(labels);
    const application = lineage && view.applicationByLineage(namespace, lineage);
    if (application) return application;
  }
  for (const labels of [workload.metadata.labels, workload.podMetadata.labels]) {
    const helmRelease = labels?.[FLUX_HELMRELEASE_NAME_LABEL];
    if (helmRelease) return view.applicationByHelmRelease(labels?.[FLUX_HELMRELEASE_NAMESPACE_LABEL] ?? namespace, helmRelease);
  }
  return undefined;
}

/** Each class of the snapshot compiled once per view, on first use. */
function compiledClasses(): Map<string, CompiledPlacement> {
  return new Map();
}

function compiledClass(view: SnapshotView, name: string): CompiledPlacement | undefined {
  const affinityClass = view.affinityClass(name);
  if (!affinityClass) return undefined;
  const compiled = view.derived(compiledClasses);
  let placement = compiled.get(name);
  if (!placement) compiled.set(name, (placement = compilePlacement(placementOf(affinityClass.nodeSelector, requiredTermsOf(affinityClass.nodeAffinity)))));
  return placement;
}

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  if (!isWorkloadKind(request.kind.kind)) return [];
  const workload = workloadOf(request.kind.kind, request.object);
  const namespace = request.namespace || workload.metadata.namespace || "";
  const application = applicationOf(workload, namespace, view);
  if (!application) return [];
  const className = application.affinityClass;
  const tenant = view.tenant(namespace);
  const subject = describeObject(workload.kind, workload.metadata, request.namespace);
  const owner = application.kind && application.name ? `${application.kind} ${application.name}` : `HelmRelease ${application.helmRelease}`;
  if (!className) {
    // Not judged (see above), but not silently: the tenant's default is what the docs promise, and it is not enforced here.
    if (!tenant?.defaultAffinityClass) return [];
    return [
      {
        message: `${subject} belongs to application ${owner}, whose HelmRelease has no apps.cozystack.io/affinity-class label: not judged against tenant ${tenant.name}'s default AffinityClass "${tenant.defaultAffinityClass}"; label the HelmRelease to enforce it`,
        scope: { tenantNamespace: namespace },
        informational: true,
      },
    ];
  }

  const scope = { affinityClass: className, tenantNamespace: tenant ? namespace : undefined };
  const compiled = compiledClass(view, className);
  if (!compiled) {
    return [{ message: `AffinityClass "${className}" not found (required by application ${owner} of ${subject})`, scope }];
  }

  // Defense in depth behind the application check: a class the tenant does not allow places nothing.
  const allowed = tenant?.allowedAffinityClasses;
  const notAllowed: Finding[] =
    allowed && !allowed.includes(className)
      ? [{ message: `${subject} belongs to application with AffinityClass "${className}", which tenant ${tenant!.name} does not allow; allowed: ${listed(allowed, { each: MAX_NAME })}`, scope: { tenantNamespace: namespace } }]
      : [];
  return [...notAllowed, ...placementFindings(workload, subject, className, compiled, scope, (name) => view.nodeLabels(name))];
}

/** How many pod terms a message looks at for what is missing. */
const TERMS_DESCRIBED = 4;

/** Whether every node the pod may run on is one its class allows; if not, what to set. */
function placementFindings(
  workload: Workload,
  subject: string,
  className: string,
  compiled: CompiledPlacement,
  scope: Finding["scope"],
  nodeLabels: NodeLabels,
): Finding[] {
  const podPlacement = placementOf(workload.podSpec.nodeSelector, requiredTermsOf(workload.podSpec.affinity?.nodeAffinity));
  const outside = termsOutside(podPlacement, compiled, nodeLabels);
  if (outside.length === 0) return [];

  const prefix = `${subject} belongs to application with AffinityClass "${className}" but`;
  const fixing = (field: string) => (workload.kind === "Pod" ? "" : `: set ${field}`);
  const { placement } = compiled;
  const described = outside.slice(0, TERMS_DESCRIBED);
  if (placement.terms.length === 1 && placement.terms[0]!.length === 0) {
    // A nodeSelector-only class: name the pairs some pod term does not guarantee; setting them in the pod's nodeSelector fixes it.
    const field = `${workload.podSpecPath}.nodeSelector`;
    const missing = placement.selector.filter((pair) => described.some((term) => !term.guarantees(pair)));
    // Each pair's key and value are capped already.
    const pairs = listed(missing.map(describeRequirement), { each: 2 * MAX_QUOTED + 1 });
    return [{ message: `${prefix} missing required nodeSelector ${pairs}${fixing(field)}`, field, scope }];
  }
  const field = `${workload.podSpecPath}.affinity.nodeAffinity`;
  const terms = described.map((term) => describeConjunction(podPlacement.selector, term.requirements)).join(" and ");
  const more = outside.length > described.length ? ` and ${outside.length - described.length} more` : "";
  return [{ message: `${prefix} may run outside it: its node constraints ${terms}${more} are not within ${describePlacement(placement)}${fixing(field)}`, field, scope }];
}

export const affinityClassPolicy: Policy = {
  id,
  description: "Pods of an application can only run on nodes their AffinityClass allows",
  defaultMode: "Deny",
  matches: judged,
  evaluate,
};
