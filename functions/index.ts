// The Worker entry point.
import { app } from "./app.js";

export { SnapshotStore } from "./store/index.js";
export default app;
