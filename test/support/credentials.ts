// The policies of the credential tests (docs/validating-admission-policies.md,
// "Credentials are never judged"), for the function, webhook-config and check
// alike: what the exploit wrote, a test on a Secret's value.

/** A validation that reads a Secret's password: its verdict would say whether the value starts with "h". */
export const PEEK = `{expression: "!has(object.data) || !object.data.password.startsWith('aHVudGVy')", message: "the password starts with h"}`;

/** A validation any object without labels fails. */
export const LABELLED = `{expression: "has(object.metadata.labels)", message: "needs labels"}`;

/** A ValidatingAdmissionPolicy on `resources` (a YAML list) of the core group, with one validation. */
export const corePolicy = (name: string, resources: string, validation: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: ${resources}}
  validations:
  - ${validation}`;

/** What a policy on Secrets only is told, wherever it is compiled. */
export const ONLY_SECRETS =
  'spec.matchConstraints.resourceRules match only secrets, whose admission requests carry credentials: edgeadmit never judges them, and its webhook configuration never sends them (docs/validating-admission-policies.md, "Credentials are never judged")';
