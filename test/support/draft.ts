// The design draft's AffinityClasses and tenants, as the demo cluster holds
// them (examples/demo/cluster.yaml): tests build their clusters on these.
import demoYaml from "../../examples/demo/cluster.yaml?raw";
import { objectsFromYaml } from "./worker.js";

const demo = objectsFromYaml(demoYaml);
const named = (name: string) => (o: (typeof demo)[number]) => (o.metadata as { name?: string } | undefined)?.name === name;

/** AffinityClasses dc1 (zone=dc1), dc2 (zone=dc2) and gpu (node.kubernetes.io/gpu=true). */
export const DRAFT_CLASSES = demo.filter((o) => o.kind === "AffinityClass");
/** The root tenant. */
export const ROOT_TENANT = demo.filter((o) => o.kind === "Tenant" && named("root")(o));
/** Tenant acme owning tenant-acme: allowed [dc1, dc2], default dc1. */
export const ACME_TENANT = demo.filter((o) => o.kind === "Tenant" && named("acme")(o));
