// zod schemas for the Kubernetes shapes edgeadmit reads. Loose objects: the
// apiserver has already validated the full schema; we only check what we use.
import * as z from "zod/mini";
import "../../zod/index.js";

export const stringMapSchema = z.record(z.string(), z.string());

/**
 * The text the apiserver parses for a resource.Quantity written as a JSON (or
 * YAML) number: Quantity.UnmarshalJSON hands the number's own text to
 * ParseQuantity, so `cpu: 1` is "1" and `cpu: 0.5` is "0.5" (500m). A double
 * prints as Go's encoder prints it up to the exponent's zero padding
 * (`1e+21`, `1e-7`), which ParseQuantity reads alike. Integers past 2^53 are
 * already rounded by the YAML or JSON reader, as in any JavaScript tool.
 */
export function quantityText(value: string | number): string {
  return typeof value === "number" ? String(value) : value;
}

/** A resource.Quantity as the apiserver decodes one: a string, or a number read as its text (see quantityText). */
const quantitySchema = z.union([z.string(), z.pipe(z.number(), z.transform<number, string>(quantityText))]);

/** resources.requests/limits, overhead, allocatable: resource name → quantity, numbers accepted as the apiserver accepts them. */
export const quantityMapSchema = z.record(z.string(), quantitySchema);

export const objectMetaSchema = z.looseObject({
  name: z.optional(z.string()),
  generateName: z.optional(z.string()),
  namespace: z.optional(z.string()),
  labels: z.optional(z.nullable(stringMapSchema)),
  annotations: z.optional(z.nullable(stringMapSchema)),
});
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

const NODE_SELECTOR_OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"] as const;

const nodeSelectorRequirementSchema = z.object({
  key: z.string(),
  operator: z.enum(NODE_SELECTOR_OPERATORS),
  values: z.optional(z.nullable(z.array(z.string()))),
});
export type NodeSelectorRequirement = z.infer<typeof nodeSelectorRequirementSchema>;

const nodeSelectorTermSchema = z.object({
  matchExpressions: z.optional(z.nullable(z.array(nodeSelectorRequirementSchema))),
  matchFields: z.optional(z.nullable(z.array(nodeSelectorRequirementSchema))),
});
export type NodeSelectorTerm = z.infer<typeof nodeSelectorTermSchema>;

export const nodeAffinitySchema = z.looseObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.optional(
    z.nullable(z.object({ nodeSelectorTerms: z.array(nodeSelectorTermSchema) })),
  ),
  preferredDuringSchedulingIgnoredDuringExecution: z.optional(z.nullable(z.array(z.unknown()))),
});
export type NodeAffinity = z.infer<typeof nodeAffinitySchema>;

const labelSelectorRequirementSchema = z.object({
  key: z.string(),
  operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
  values: z.optional(z.nullable(z.array(z.string()))),
});
export const labelSelectorSchema = z.object({
  matchLabels: z.optional(z.nullable(stringMapSchema)),
  matchExpressions: z.optional(z.nullable(z.array(labelSelectorRequirementSchema))),
});
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

const podAffinityTermSchema = z.looseObject({
  labelSelector: z.optional(z.nullable(labelSelectorSchema)),
  namespaces: z.optional(z.nullable(z.array(z.string()))),
  namespaceSelector: z.optional(z.nullable(labelSelectorSchema)),
  topologyKey: z.optional(z.string()),
  matchLabelKeys: z.optional(z.nullable(z.array(z.string()))),
});
export type PodAffinityTerm = z.infer<typeof podAffinityTermSchema>;

const weightedPodAffinityTermSchema = z.looseObject({ weight: z.optional(z.number()), podAffinityTerm: podAffinityTermSchema });

const podAffinitySchema = z.looseObject({
  requiredDuringSchedulingIgnoredDuringExecution: z.optional(z.nullable(z.array(podAffinityTermSchema))),
  preferredDuringSchedulingIgnoredDuringExecution: z.optional(z.nullable(z.array(weightedPodAffinityTermSchema))),
});
export type PodAffinity = z.infer<typeof podAffinitySchema>;

const volumeSchema = z.looseObject({
  name: z.string(),
  persistentVolumeClaim: z.optional(z.nullable(z.looseObject({ claimName: z.string(), readOnly: z.optional(z.boolean()) }))),
});

export const podSpecSchema = z.looseObject({
  nodeSelector: z.optional(z.nullable(stringMapSchema)),
  affinity: z.optional(
    z.nullable(
      z.looseObject({
        nodeAffinity: z.optional(z.nullable(nodeAffinitySchema)),
        podAffinity: z.optional(z.nullable(podAffinitySchema)),
        podAntiAffinity: z.optional(z.nullable(podAffinitySchema)),
      }),
    ),
  ),
  topologySpreadConstraints: z.optional(z.nullable(z.array(z.looseObject({ labelSelector: z.optional(z.nullable(labelSelectorSchema)) })))),
  volumes: z.optional(z.nullable(z.array(volumeSchema))),
  containers: z.optional(z.nullable(z.array(z.looseObject({ name: z.optional(z.string()) })))),
});
export type PodSpec = z.infer<typeof podSpecSchema>;

export const podTemplateSchema = z.looseObject({
  metadata: z.optional(z.nullable(objectMetaSchema)),
  spec: z.optional(z.nullable(podSpecSchema)),
});

/** A webhook rule as the snapshot carries it (the sync job reads it from the cluster). */
export const webhookRuleSchema = z.object({
  apiGroups: z.array(z.string()),
  apiVersions: z.array(z.string()),
  resources: z.array(z.string()),
  operations: z.array(z.string()),
  scope: z.enum(["Cluster", "Namespaced", "*"]),
});
/** A webhook rule, as admissionregistration.k8s.io/v1 RuleWithOperations spells it. */
export type WebhookRule = z.infer<typeof webhookRuleSchema>;
