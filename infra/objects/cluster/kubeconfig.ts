// The kubeconfig the live path talks to the cluster with.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { KubeConfig } from "@kubernetes/client-node";
import { CliError, EXIT_USAGE, firstLine } from "../../base/errors.js";

/** The kubeconfig kubectl would use (KUBECONFIG, ~/.kube/config, or the pod's service account), on `context`; one that cannot be used (or a context it lacks) is a usage error, 2, in every verb. */
export function loadKubeConfig(context?: string): KubeConfig {
  const config = new KubeConfig();
  const fromEnv = (process.env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  const missing = fromEnv.filter((file) => !existsSync(file));
  if (fromEnv.length > 0 && missing.length === fromEnv.length) throw new CliError(`no kubeconfig: KUBECONFIG names ${missing.join(", ")}, which does not exist`, EXIT_USAGE);
  const inCluster = Boolean(process.env.KUBERNETES_SERVICE_HOST) && existsSync("/var/run/secrets/kubernetes.io/serviceaccount/token");
  if (fromEnv.length === 0 && !existsSync(join(homedir(), ".kube", "config")) && !inCluster)
    throw new CliError("no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run inside a cluster", EXIT_USAGE);
  try {
    config.loadFromDefault();
  } catch (e) {
    throw new CliError(`cannot load the kubeconfig: ${firstLine((e as Error).message)}`, EXIT_USAGE);
  }
  if (context !== undefined) {
    if (!config.getContextObject(context))
      throw new CliError(`no context "${context}" in the kubeconfig (contexts: ${config.getContexts().map((c) => c.name).join(", ") || "none"})`, EXIT_USAGE);
    config.setCurrentContext(context);
  }
  if (!config.getCurrentCluster()?.server) throw new CliError(`the kubeconfig's context "${config.getCurrentContext()}" names no cluster with a server`, EXIT_USAGE);
  return config;
}
