// The end-to-end floor: a Worker that reads the AdmissionReview and allows it,
// served by the same workerd and wrangler.toml as the function. What the
// function costs beyond this is routing, decoding, policies and encoding.
import { allowAll } from "./noop.js";

// wrangler.toml binds these Durable Object classes, so every entry must export them; the no-op never uses them.
export { SnapshotStore } from "../functions/store/index.js";
export { ClusterRegistry } from "../functions/registry/index.js";

export default { fetch: allowAll };
