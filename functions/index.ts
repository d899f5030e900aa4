// The Worker entry point.
import { app } from "./app.js";

export { ClusterRegistry } from "./registry/index.js";
export { SnapshotStore } from "./store/index.js";
export default app;
