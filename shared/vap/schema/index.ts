// ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) and its
// bindings as edgeadmit reads them: the apiserver validated them when they
// were stored, so these schemas check what the evaluation relies on and fill
// in the API's defaults (failurePolicy Fail, matchPolicy Equivalent, empty
// selectors, scope "*"), which objects read from YAML may leave out.
import * as z from "zod/mini";
import "../../zod/index.js";
import { labelSelectorSchema } from "../../k8s/schemas/index.js";

export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT", "*"] as const;
const VALIDATION_ACTIONS = ["Deny", "Warn", "Audit"] as const;
export type ValidationAction = (typeof VALIDATION_ACTIONS)[number];
export const FAILURE_POLICIES = ["Fail", "Ignore"] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

/** Absent or null: the API's default (objects from YAML leave fields out; the apiserver may write null). */
function orDefault<T>(schema: z.ZodMiniType<T>, fallback: NoInfer<T>) {
  return z.pipe(z.optional(z.nullable(schema)), z.transform((value): T => value ?? fallback));
}

const strings = orDefault(z.array(z.string()), []);

export const namedRuleSchema = z.looseObject({
  resourceNames: strings,
  operations: strings,
  apiGroups: strings,
  apiVersions: strings,
  resources: strings,
  scope: orDefault(z.enum(["Cluster", "Namespaced", "*"]), "*"),
});
export type NamedRule = z.output<typeof namedRuleSchema>;

export const matchResourcesSchema = z.looseObject({
  namespaceSelector: orDefault(labelSelectorSchema, {}),
  objectSelector: orDefault(labelSelectorSchema, {}),
  resourceRules: orDefault(z.array(namedRuleSchema), []),
  excludeResourceRules: orDefault(z.array(namedRuleSchema), []),
  matchPolicy: orDefault(z.enum(["Exact", "Equivalent"]), "Equivalent"),
});
export type MatchResources = z.output<typeof matchResourcesSchema>;

const expressionSchema = z.string().check(z.minLength(1));

const policySpecSchema = z.looseObject({
  paramKind: z.optional(z.nullable(z.looseObject({ apiVersion: z.string(), kind: z.string() }))),
  matchConstraints: orDefault(matchResourcesSchema, {
    namespaceSelector: {},
    objectSelector: {},
    resourceRules: [],
    excludeResourceRules: [],
    matchPolicy: "Equivalent",
  }),
  validations: orDefault(
    z.array(
      z.looseObject({
        expression: expressionSchema,
        message: z.optional(z.nullable(z.string())),
        reason: z.optional(z.nullable(z.string())),
        messageExpression: z.optional(z.nullable(z.string())),
      }),
    ),
    [],
  ),
  failurePolicy: orDefault(z.enum(FAILURE_POLICIES), "Fail"),
  auditAnnotations: orDefault(z.array(z.looseObject({ key: z.string(), valueExpression: expressionSchema })), []),
  matchConditions: orDefault(z.array(z.looseObject({ name: z.string(), expression: expressionSchema })), []),
  variables: orDefault(z.array(z.looseObject({ name: z.string(), expression: expressionSchema })), []),
});
export type PolicySpec = z.output<typeof policySpecSchema>;

const paramRefSchema = z.looseObject({
  name: z.optional(z.nullable(z.string())),
  namespace: z.optional(z.nullable(z.string())),
  selector: z.optional(z.nullable(labelSelectorSchema)),
  parameterNotFoundAction: z.optional(z.nullable(z.enum(["Allow", "Deny"]))),
});

const bindingSpecSchema = z.looseObject({
  policyName: z.string().check(z.minLength(1)),
  paramRef: z.optional(z.nullable(paramRefSchema)),
  matchResources: z.optional(z.nullable(matchResourcesSchema)),
  validationActions: z.array(z.enum(VALIDATION_ACTIONS)).check(z.minLength(1)),
});
export type BindingSpec = z.output<typeof bindingSpecSchema>;

const metadataSchema = z.looseObject({ name: z.string().check(z.minLength(1)) });

export const policyObjectSchema = z.looseObject({ metadata: metadataSchema, spec: policySpecSchema });
export const bindingObjectSchema = z.looseObject({ metadata: metadataSchema, spec: bindingSpecSchema });
