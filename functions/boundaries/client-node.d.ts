// tsconfig.worker.json maps "@kubernetes/client-node" here: this file exports
// nothing, so any import of it from worker code fails to compile. The client
// is Node-only (infra/); the worker never bundles it.
export {};
