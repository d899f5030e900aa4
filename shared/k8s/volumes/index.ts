// Which PersistentVolumeClaims a workload's pods share.
import * as z from "zod/mini";
import "../../zod/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import type { Workload } from "../workload/index.js";

const claimTemplatesSchema = z.looseObject({
  volumeClaimTemplates: z.optional(z.nullable(z.array(z.looseObject({ metadata: z.optional(z.nullable(z.looseObject({ name: z.optional(z.string()) }))) })))),
});

/**
 * Claim names every pod of the workload mounts, once each. A StatefulSet's
 * volumeClaimTemplates give each pod its own claim, and the controller
 * replaces a template volume of the same name with it: not shared.
 */
export function sharedClaimNames(workload: Workload): string[] {
  const perPod = new Set<string>();
  if (workload.kind === "StatefulSet") {
    const parsed = parseUnchanged(claimTemplatesSchema, workload.spec);
    for (const template of (parsed.success ? parsed.data.volumeClaimTemplates : undefined) ?? []) {
      if (template.metadata?.name) perPod.add(template.metadata.name);
    }
  }
  const claims = new Set<string>();
  for (const volume of workload.podSpec.volumes ?? []) {
    if (volume.persistentVolumeClaim && !perPod.has(volume.name)) claims.add(volume.persistentVolumeClaim.claimName);
  }
  return [...claims];
}
