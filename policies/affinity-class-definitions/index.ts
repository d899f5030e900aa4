// AffinityClass objects: well-formed (label syntax, node selector terms the
// scheduler can use) and constraining something; and not deleted while a
// HelmRelease or Tenant in the snapshot still names them (an index the
// snapshot's cluster part carries, so a DELETE costs a lookup at any size).
import type { AdmissionRequest } from "../../shared/admission/index.js";
import type { Finding, Policy } from "../../shared/policy/index.js";
import { ENFORCEMENT_MODES } from "../../shared/policy/index.js";
import * as z from "zod/mini";
import { describeZodError } from "../../shared/zod/index.js";
import { nodeAffinitySchema, objectMetaSchema, stringMapSchema, type NodeSelectorRequirement } from "../../shared/k8s/schemas/index.js";
import { isLabelKey, isLabelValue, labelKeyError, labelValueError } from "../../shared/k8s/labels/index.js";
import { ownKeys } from "../../shared/json/index.js";
import { requirementProblem } from "../../shared/k8s/nodeaffinity/index.js";
import type { SnapshotView } from "../../shared/snapshot/view.js";
import { capped, listed } from "../../shared/text/index.js";

export const id = "affinity-class-definitions";

const affinityClassSchema = z.looseObject({
  metadata: z.optional(objectMetaSchema),
  spec: z.optional(z.nullable(z.looseObject({ nodeSelector: z.optional(z.unknown()), nodeAffinity: z.optional(z.unknown()), enforcement: z.optional(z.unknown()) }))),
});

function judged(request: AdmissionRequest): boolean {
  return request.kind.group === "cozystack.io" && request.kind.kind === "AffinityClass" && request.operation !== "CONNECT" && !request.subResource;
}

function requirementFindings(requirement: NodeSelectorRequirement, field: string, isField: boolean): string[] {
  const values = requirement.values ?? [];
  const problems: string[] = [];
  const structural = requirementProblem({ key: requirement.key, operator: requirement.operator, values, field: isField });
  if (structural) problems.push(structural);
  if (!isField) {
    const keyError = labelKeyError(requirement.key);
    if (keyError) problems.push(keyError);
    if (requirement.operator === "In" || requirement.operator === "NotIn") problems.push(...values.flatMap((v) => labelValueError(v) ?? []));
  }
  return problems.map((problem) => `${field}: ${problem}`);
}

/** How many problems of one AffinityClass are reported, one finding each, before the rest are counted. */
const MAX_PROBLEMS = 10;

/**
 * A nodeSelector's problems, in order: the first `shown` described, the rest
 * only counted (a class may hold thousands of bad pairs; a message costs more
 * than the check). Read in place, one lookup a pair, through the shared key
 * list (zod's record would copy every pair first). Undefined when it is not a
 * map of strings to strings.
 */
function nodeSelectorProblems(value: unknown, shown: number): { problems: string[]; more: number; pairs: number } | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const map = value as Record<string, unknown>;
  const keys = ownKeys(map);
  const problems: string[] = [];
  let more = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const pairValue = map[key];
    if (typeof pairValue !== "string") return undefined;
    if (problems.length >= shown) more += (isLabelKey(key) ? 0 : 1) + (isLabelValue(pairValue) ? 0 : 1);
    else
      for (const error of [labelKeyError(key), labelValueError(pairValue)]) {
        if (!error) continue;
        if (problems.length < shown) problems.push(`spec.nodeSelector: ${error}`);
        else more++;
      }
  }
  return { problems, more, pairs: keys.length };
}

/** Every problem of a spec, in order; past MAX_PROBLEMS of them a nodeSelector's bad pairs are only counted (`more`), not described. */
function definitionProblems(spec: { nodeSelector?: unknown; nodeAffinity?: unknown; enforcement?: unknown }): { problems: string[]; more: number } {
  const problems: string[] = [];
  let more = 0;
  let selectorPairs = 0;
  if (spec.nodeSelector != null) {
    const selector = nodeSelectorProblems(spec.nodeSelector, MAX_PROBLEMS);
    if (!selector) problems.push(`spec.nodeSelector: ${capped(describeZodError(stringMapSchema.safeParse(spec.nodeSelector).error!), 200)}`);
    else {
      problems.push(...selector.problems);
      more = selector.more;
      selectorPairs = selector.pairs;
    }
  }
  let terms = 0;
  if (spec.nodeAffinity != null) {
    const affinity = nodeAffinitySchema.safeParse(spec.nodeAffinity);
    if (!affinity.success) problems.push(`spec.nodeAffinity: ${capped(describeZodError(affinity.error), 200)}`);
    else {
      const path = "spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
      const nodeSelectorTerms = affinity.data.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
      terms = nodeSelectorTerms.length;
      nodeSelectorTerms.forEach((term, i) => {
        const expressions = term.matchExpressions ?? [];
        const fields = term.matchFields ?? [];
        if (expressions.length + fields.length === 0) problems.push(`${path}[${i}]: an empty term matches no node`);
        expressions.forEach((r, j) => problems.push(...requirementFindings(r, `${path}[${i}].matchExpressions[${j}]`, false)));
        fields.forEach((r, j) => problems.push(...requirementFindings(r, `${path}[${i}].matchFields[${j}]`, true)));
      });
    }
  }
  if (selectorPairs === 0 && terms === 0 && problems.length === 0) {
    problems.push("sets neither spec.nodeSelector nor spec.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, so it constrains nothing");
  }
  if (spec.enforcement != null && !(ENFORCEMENT_MODES as readonly unknown[]).includes(spec.enforcement)) {
    problems.push(`spec.enforcement: ${capped(JSON.stringify(spec.enforcement))} is not one of ${ENFORCEMENT_MODES.join(", ")}`);
  }
  return { problems, more };
}

function evaluate(request: AdmissionRequest, view: SnapshotView): Finding[] {
  const object = request.operation === "DELETE" ? request.oldObject : request.object;
  const parsed = affinityClassSchema.safeParse(object ?? {});
  const name = request.name || (parsed.success ? parsed.data.metadata?.name : undefined) || "";

  if (request.operation === "DELETE") {
    // Precomputed over the whole snapshot when it was split (shared/snapshot/units/indexes.ts): a DELETE reads no shard.
    const references = view.affinityClassReferences(name);
    if (!references) return [];
    return [{ message: `AffinityClass "${capped(name)}" is still referenced by ${listed(references.shown, { each: 2 * 253 + 40, total: references.total })}: move them to another class first` }];
  }
  const subject = `AffinityClass "${capped(name)}"`;
  if (!parsed.success) return [{ message: `${subject}: ${capped(describeZodError(parsed.error), 200)}` }];
  const { problems, more } = definitionProblems(parsed.data.spec ?? {});
  const findings: Finding[] = problems.slice(0, MAX_PROBLEMS).map((problem) => ({ message: `${subject}: ${problem}`, field: problem.match(/^spec[^:\s]*/)?.[0] }));
  if (problems.length + more > MAX_PROBLEMS) findings.push({ message: `${subject}: and ${problems.length + more - MAX_PROBLEMS} more problems` });
  return findings;
}

export const affinityClassDefinitionsPolicy: Policy = {
  id,
  description: "AffinityClasses are well-formed, constrain something, and are not deleted while in use",
  defaultMode: "Deny",
  matches: judged,
  evaluate,
};
