// How a Deployment rolls out, with Kubernetes' defaults and rounding
// (apps/v1 SetDefaults_Deployment, deployment util ResolveFenceposts,
// intstr.GetScaledValueFromIntOrPercent), so policies see the numbers the
// deployment controller will use rather than the ones written in YAML.
import * as z from "zod/mini";
import { parseUnchanged } from "../../zod/unchanged.js";
import { invalidObject } from "../workload/index.js";

/** An IntOrString of a rollout field: a non-negative integer or a percentage string like "25%". */
type IntOrPercent = number | string;

const PERCENT = /^[0-9]+%$/;
const intOrPercentSchema = z.union([z.number().check(z.int(), z.minimum(0)), z.string().check(z.regex(PERCENT, 'must be an integer or a percentage like "25%"'))]);

const deploymentSchema = z.looseObject({
  spec: z.optional(z.nullable(z.looseObject({
  replicas: z.optional(z.nullable(z.number().check(z.int(), z.minimum(0)))),
  strategy: z.optional(
    z.nullable(
      z.looseObject({
        type: z.optional(z.nullable(z.string())),
        rollingUpdate: z.optional(
          z.nullable(z.looseObject({ maxSurge: z.optional(z.nullable(intOrPercentSchema)), maxUnavailable: z.optional(z.nullable(intOrPercentSchema)) })),
        ),
      }),
    ),
  ),
}))),
});

/** The Kubernetes default for both maxSurge and maxUnavailable. */
const DEFAULT_ROLLING_UPDATE_PERCENT = "25%";

/**
 * intstr.GetScaledValueFromIntOrPercent: an integer is itself; a percentage of
 * `total` rounds up or down as asked, in float64 arithmetic exactly as Go does.
 */
export function scaledValue(value: IntOrPercent, total: number, roundUp: boolean): number {
  if (typeof value === "number") return value;
  if (!PERCENT.test(value)) throw new RangeError(`"${value}" is not an integer or a percentage`);
  const scaled = (Number(value.slice(0, -1)) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/**
 * ResolveFenceposts: maxSurge rounds up, maxUnavailable rounds down, and when
 * both come to 0 the controller takes maxUnavailable 1 (it must make progress).
 */
export function resolveFenceposts(maxSurge: IntOrPercent, maxUnavailable: IntOrPercent, replicas: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, replicas, true);
  const unavailable = scaledValue(maxUnavailable, replicas, false);
  return { surge, unavailable: surge === 0 && unavailable === 0 ? 1 : unavailable };
}

type DeploymentRollout =
  | { type: "Recreate"; replicas: number }
  | { type: "RollingUpdate"; replicas: number; maxSurge: IntOrPercent; maxUnavailable: IntOrPercent; surge: number; unavailable: number };

/** A Deployment's `spec` → its rollout after defaulting (replicas 1, RollingUpdate, 25%/25%) and rounding. */
export function deploymentRollout(spec: unknown): DeploymentRollout {
  const parsed = parseUnchanged(deploymentSchema, { spec });
  if (!parsed.success) throw invalidObject("Deployment", parsed.error);
  const replicas = parsed.data.spec?.replicas ?? 1;
  const strategy = parsed.data.spec?.strategy;
  if (strategy?.type === "Recreate") return { type: "Recreate", replicas };
  const maxSurge = strategy?.rollingUpdate?.maxSurge ?? DEFAULT_ROLLING_UPDATE_PERCENT;
  const maxUnavailable = strategy?.rollingUpdate?.maxUnavailable ?? DEFAULT_ROLLING_UPDATE_PERCENT;
  return { type: "RollingUpdate", replicas, maxSurge, maxUnavailable, ...resolveFenceposts(maxSurge, maxUnavailable, replicas) };
}
