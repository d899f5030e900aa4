// What a policy is (the "what"), separate from how hard it is enforced (the
// "how": modes, applied by shared/review) — as ValidatingAdmissionPolicy
// separates a policy from its binding's validationActions.
import type { AdmissionRequest } from "../admission/index.js";
import type { SnapshotView } from "../snapshot/view.js";
import type { EnforcementMode } from "../snapshot/modes.js";

export * from "../snapshot/modes.js";

/** One thing a policy found wrong. It never says how hard: that is configuration. */
export interface Finding {
  /** One line: what is wrong and how to fix it. */
  message: string;
  /** The field to change, dotted (`spec.template.spec.nodeSelector`). */
  field?: string;
  /**
   * Where configuration for this finding may live beyond the cluster's
   * per-policy mode: an AffinityClass's `enforcement`, overridden per tenant.
   */
  scope?: { affinityClass?: string; tenantNamespace?: string };
  /**
   * Information, not a violation (`the tenant's default class will apply`):
   * never denies; at most a warning, whatever the configured mode.
   */
  informational?: boolean;
}

export interface Policy {
  /** Stable id: the URL segment, the settings key, the auditAnnotation key. */
  id: string;
  description: string;
  defaultMode: EnforcementMode;
  /** Cheap test on kind and operation: does this policy look at the request at all? */
  matches(request: AdmissionRequest): boolean;
  /** Pure: no I/O, no clock. Everything it needs is in the request and the snapshot. */
  evaluate(request: AdmissionRequest, snapshot: SnapshotView): Finding[];
}
