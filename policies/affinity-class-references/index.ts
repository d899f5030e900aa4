// Objects that name AffinityClasses: CozyStack applications (spec.affinityClass)
// and Tenants (spec.allowedAffinityClasses, spec.defaultAffinityClass). A
// class must exist and be allowed where it is named, so a mistake shows on
// `kubectl apply` of the application, not later as pods that never start.
import type { AdmissionRequest } from "../../shared/admission/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import * as z from "zod/mini";
import { objectMetaSchema } from "../../shared/k8s/schemas/index.js";
import { invalidObject } from "../../shared/k8s/workload/index.js";
import { parseUnchanged } from "../../shared/zod/unchanged.js";
import { tenantNamespaceOf, type SnapshotView } from "../../shared/snapshot/view.js";
import { capped, listed, MAX_LISTED, MAX_NAME } from "../../shared/text/index.js";

export const id = "affinity-class-references";

const APPS_GROUP = "apps.cozystack.io";

const applicationSchema = z.looseObject({
  metadata: z.optional(objectMetaSchema),
  spec: z.optional(z.nullable(z.looseObject({ affinityClass: z.optional(z.nullable(z.string())) }))),
});

const tenantSchema = z.looseObject({
  metadata: z.optional(objectMetaSchema),
  spec: z.optional(
    z.nullable(
      z.looseObject({
        allowedAffinityClasses: z.optional(z.nullable(z.array(z.string()))),
        defaultAffinityClass: z.optional(z.nullable(z.string())),
      }),
    ),
  ),
});

/** The cluster's class names in order, worked out once per snapshot view. */
const sortedClassNames = (view: SnapshotView) => view.affinityClassNames().sort();
const existingClasses = (view: SnapshotView) => `existing classes: ${listed(view.derived(sortedClassNames), { each: MAX_NAME })}`;

function parse<T>(schema: z.ZodMiniType<T>, kind: string, object: unknown): T {
  const result = parseUnchanged(schema, object);
  if (!result.success) throw invalidObject(capped(kind), result.error);
  return result.data;
}

function judged(request: AdmissionRequest): boolean {
  return request.kind.group === APPS_GROUP && (request.operation === "CREATE" || request.operation === "UPDATE") && !request.subResource;
}

function evaluateApplication(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const application = parse(applicationSchema, request.kind.kind, request.object);
  const namespace = request.namespace || application.metadata?.namespace || "";
  const subject = `${capped(request.kind.kind)} ${capped(namespace)}/${capped(application.metadata?.name ?? request.name ?? "(unnamed)")}`;
  const tenant = view.tenant(namespace);
  const scope = tenant ? { tenantNamespace: namespace } : undefined;
  const field = "spec.affinityClass";
  const className = application.spec?.affinityClass;

  if (!className) {
    if (!tenant?.defaultAffinityClass) return [];
    return [{ message: `${subject} names no AffinityClass: tenant ${tenant.name}'s default "${tenant.defaultAffinityClass}" will apply`, field, scope, informational: true }];
  }
  const allowed = tenant?.allowedAffinityClasses;
  if (!view.affinityClass(className)) {
    const choices = allowed ? `allowed in tenant ${tenant!.name}: ${listed(allowed, { each: MAX_NAME })}` : existingClasses(view);
    return [{ message: `${subject}: AffinityClass "${capped(className)}" does not exist; ${choices}`, field, scope }];
  }
  if (allowed && !allowed.includes(className)) {
    return [{ message: `${subject}: AffinityClass "${capped(className)}" is not allowed in tenant ${tenant!.name}; allowed: ${listed(allowed, { each: MAX_NAME })}`, field, scope }];
  }
  return [];
}

/**
 * The names a tenant lists that `select` picks: the first MAX_LISTED of them,
 * each once, and how many there are. A tenant may list 100,000 names: they
 * are each looked at once, never gathered into a set (hashing that many
 * fresh strings cost several times the review's decode), so past MAX_LISTED
 * distinct names the count is of entries, a name listed twice counted twice.
 */
function named(names: readonly string[], select: (name: string) => boolean): { shown: string[]; total: number } {
  const shown: string[] = [];
  let total = 0;
  for (const name of names) {
    if (!select(name)) continue;
    total++;
    if (shown.length < MAX_LISTED && !shown.includes(name)) shown.push(name);
  }
  return { shown, total: shown.length < MAX_LISTED ? shown.length : total };
}

/** The classes a tenant lists, as `listed` words them, each name once. */
const listedOwn = (own: readonly string[], each?: number) => {
  const { shown, total } = named(own, () => true);
  return listed(shown, { total, ...(each === undefined ? {} : { each }) });
};

function evaluateTenant(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const tenant = parse(tenantSchema, "Tenant", request.object);
  const name = tenant.metadata?.name ?? request.name ?? "";
  const parentNamespace = request.namespace || tenant.metadata?.namespace || "";
  const subject = `Tenant ${capped(parentNamespace)}/${capped(name)}`;
  // The root tenant owns the namespace it lives in; any other lives in its parent's.
  const parent = tenantNamespaceOf(name, parentNamespace) === parentNamespace ? undefined : view.tenant(parentNamespace);
  const own = tenant.spec?.allowedAffinityClasses?.length ? tenant.spec.allowedAffinityClasses : undefined;
  const allowed = own ?? parent?.allowedAffinityClasses;
  const findings: Finding[] = [];

  const missing = named(own ?? [], (c) => !view.affinityClass(c));
  if (missing.total > 0) {
    findings.push({
      message: `${subject}: spec.allowedAffinityClasses names ${listed(missing.shown, { quoted: true, total: missing.total })}, which ${missing.total === 1 ? "does" : "do"} not exist; ${existingClasses(view)}`,
      field: "spec.allowedAffinityClasses",
    });
  }
  const parentAllowed = parent?.allowedAffinityClasses;
  const parentAllows = new Set(parentAllowed);
  const widening = parentAllowed ? named(own ?? [], (c) => !parentAllows.has(c) && view.affinityClass(c) !== undefined) : { shown: [], total: 0 };
  if (widening.total > 0) {
    findings.push({
      message: `${subject}: spec.allowedAffinityClasses names ${listed(widening.shown, { quoted: true, total: widening.total })}, which parent tenant ${parent!.name} does not allow; it allows: ${listed(parentAllowed!, { each: MAX_NAME })}`,
      field: "spec.allowedAffinityClasses",
    });
  }

  const field = "spec.defaultAffinityClass";
  const defaultClass = tenant.spec?.defaultAffinityClass;
  if (defaultClass) {
    if (!view.affinityClass(defaultClass)) {
      findings.push({ message: `${subject}: spec.defaultAffinityClass "${capped(defaultClass)}" does not exist; ${existingClasses(view)}`, field });
    } else if (allowed && !allowed.includes(defaultClass)) {
      const whose = own ? "its" : `parent tenant ${parent!.name}'s`;
      findings.push({ message: `${subject}: spec.defaultAffinityClass "${capped(defaultClass)}" is not among ${whose} allowed classes: ${own ? listedOwn(own, MAX_NAME) : listed(allowed, { each: MAX_NAME })}`, field });
    }
  } else if (own && parent?.defaultAffinityClass && !own.includes(parent.defaultAffinityClass)) {
    findings.push({
      message: `${subject}: would inherit default "${parent.defaultAffinityClass}" from parent tenant ${parent.name}, which is not among its allowed classes ${listedOwn(own)}: set spec.defaultAffinityClass`,
      field,
    });
  }
  return findings;
}

export const affinityClassReferencesPolicy: Policy = {
  id,
  description: "Applications and Tenants name AffinityClasses that exist and are allowed for the tenant",
  defaultMode: "Deny",
  matches: judged,
  evaluate: (request, view) => (request.kind.kind === "Tenant" ? evaluateTenant(request, view) : evaluateApplication(request, view)),
};
