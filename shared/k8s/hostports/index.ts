// Whether a pod holds a port on its node, as the scheduler's NodePorts filter
// counts it: a port with a hostPort on a container or on a sidecar (a
// restartable init container, counted since kubernetes/kubernetes#132040). With
// hostNetwork every containerPort is a host port: the apiserver sets hostPort
// to containerPort on the Pods it creates from the template. Two replicas hold
// the same ports, so no node runs two of them.
import * as z from "zod/mini";
import "../../zod/index.js";
import { parseUnchanged } from "../../zod/unchanged.js";
import type { PodSpec } from "../schemas/index.js";

const portSchema = z.looseObject({ containerPort: z.optional(z.nullable(z.number())), hostPort: z.optional(z.nullable(z.number())) });
const containerSchema = z.looseObject({ ports: z.optional(z.nullable(z.array(portSchema))), restartPolicy: z.optional(z.nullable(z.string())) });
const portsSchema = z.looseObject({
  hostNetwork: z.optional(z.nullable(z.boolean())),
  containers: z.optional(z.nullable(z.array(containerSchema))),
  initContainers: z.optional(z.nullable(z.array(containerSchema))),
});

export function holdsHostPort(podSpec: PodSpec): boolean {
  const parsed = parseUnchanged(portsSchema, podSpec);
  if (!parsed.success) return false;
  const { hostNetwork, containers, initContainers } = parsed.data;
  const running = [...(containers ?? []), ...(initContainers ?? []).filter((c) => c.restartPolicy === "Always")];
  // A hostPort of 0 is unset, and so defaulted under hostNetwork; NodePorts ignores a port of 0 or less (HostPortInfo.CheckConflict).
  return running.some((c) => (c.ports ?? []).some((port) => (port.hostPort || (hostNetwork ? port.containerPort : 0) || 0) > 0));
}
