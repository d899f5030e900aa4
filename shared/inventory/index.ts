// The cluster's inventory inside CEL: policies that look at other objects,
// from the snapshot, with no call back to the cluster.
//   declaration.ts  what a policy declares (annotation edgeadmit.io/inventory)
//   paths.ts        field paths: the projection the snapshot keeps, the values an index keys
//   units.ts        where the inventory lives among a snapshot's storage units
//   secrets.ts      what never leaves the cluster, whatever a policy declares
//   library.ts      inventory.list / get / index in CEL, over a snapshot view
// The builder (shared/snapshot/builder) projects the declared kinds' objects,
// the split (shared/snapshot/units/split.ts) cuts them into units, the view reads
// them, shared/vap compiles each policy with its declaration.
export * from "./declaration.js";
export * from "./library.js";
export * from "./paths.js";
export * from "./secrets.js";
export * from "./units.js";
