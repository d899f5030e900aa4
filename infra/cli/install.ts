// `edgeadmit install`: everything a cluster needs, for `kubectl apply -f -`,
// as `linkerd install` and `cilium install` print it. It is the kustomize
// base infra/k8s itself, rendered by `kubectl kustomize` through an overlay
// that sets this cluster's endpoint and id (and, given --key, the signing-key
// Secret), then the ValidatingWebhookConfiguration webhook-config prints: the
// same objects as the base by construction, never a second copy of them.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { clusterIdError } from "../../shared/clusters/index.js";
import { TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { webhookConfiguration } from "../webhook/index.js";
import { optionalString, parseVerbArgs, requiredString } from "./args.js";
import { baseUrlOf } from "./endpoint.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { readInput } from "../base/io.js";
import { readPrivateKey } from "./keygen.js";
import type { Verb } from "./verb.js";

/** The base's kustomization, found from where this module runs (the source tree, or its build under .edgeadmit/run). */
function baseDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "infra", "k8s", "kustomization.yaml"))) return join(dir, "infra", "k8s");
    if (dirname(dir) === dir) throw new CliError("install renders infra/k8s of the edgeadmit source tree, and none is above this program: run it from a clone (npx edgeadmit install …)");
  }
}

/** The overlay's kustomization: the base, this cluster's endpoint and id, and the Secret when a key is given. */
function overlay(base: string, endpoint: string, cluster: string, withKey: boolean): string {
  return stringify({
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [base],
    configMapGenerator: [{ name: "edgeadmit-sync", behavior: "replace", literals: [`endpoint=${endpoint}`, `cluster=${cluster}`] }],
    ...(withKey
      ? { secretGenerator: [{ name: "edgeadmit-signing-key", namespace: "edgeadmit-system", files: ["edgeadmit.key"], options: { disableNameSuffixHash: true } }] }
      : {}),
  });
}

export const install: Verb = {
  name: "install",
  summary: "print everything a cluster needs (infra/k8s for its endpoint and id, the key Secret, the webhook) for kubectl apply -f -",
  usage: `edgeadmit install --cluster ID --endpoint https://HOST [--key FILE] [--token-file FILE]

Prints, for kubectl apply -f -: the kustomize base infra/k8s (namespace, CRDs,
RBAC, the sync CronJob and its ConfigMap) with --endpoint and --cluster set,
rendered by kubectl kustomize (kubectl must be on the PATH); with --key, the
Secret edgeadmit-signing-key holding that private key; then the
ValidatingWebhookConfiguration edgeadmit webhook-config prints (--token-file:
the token in its URL, for managed control planes). Without --key, create the
Secret yourself (docs/operations.md). The settings ConfigMap stays apart
(examples/profiles), so applying this again never resets it.

Example:
  edgeadmit install --cluster prod-eu --endpoint https://edgeadmit.example.com --key ./keys/prod-eu/edgeadmit.key | kubectl apply -f -`,
  async run(argv, io) {
    const args = parseVerbArgs("install", argv, { cluster: { type: "string" }, endpoint: { type: "string" }, key: { type: "string" }, "token-file": { type: "string" } });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = requiredString("install", args, "cluster");
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const endpoint = requiredString("install", args, "endpoint");
    if (baseUrlOf("--endpoint", endpoint).protocol !== "https:") throw new CliError(`--endpoint must be https:// here: the kube-apiserver calls webhooks over TLS only, not "${endpoint}"`, EXIT_USAGE);
    const keyFile = optionalString(args, "key");
    const pem = keyFile === undefined ? undefined : await readPrivateKey(keyFile, io);
    const tokenFile = optionalString(args, "token-file");
    let token: string | undefined;
    if (tokenFile !== undefined) {
      token = (await readInput(tokenFile, io, "token file")).trim();
      if (!TOKEN_PATTERN.test(token)) throw new CliError(`--token-file ${tokenFile} does not hold a token (edgeadmit token --form url writes one)`, EXIT_USAGE);
    }

    const base = baseDir();
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-install-"));
    let rendered: string;
    try {
      writeFileSync(join(dir, "kustomization.yaml"), overlay(relative(dir, base), endpoint.replace(/\/+$/, ""), cluster, pem !== undefined));
      if (pem !== undefined) {
        // kustomize reads a generator's files from inside the overlay only; the copy lives as long as this run.
        copyFileSync(resolve(keyFile!), join(dir, "edgeadmit.key"));
        chmodSync(join(dir, "edgeadmit.key"), 0o600);
      }
      try {
        rendered = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      } catch (e) {
        const error = e as NodeJS.ErrnoException & { stderr?: string };
        if (error.code === "ENOENT") throw new CliError("kubectl is not on the PATH: install renders infra/k8s with kubectl kustomize (Debian: apt-get install kubernetes-client)");
        throw new CliError(`kubectl kustomize failed: ${(error.stderr ?? error.message).split("\n")[0]}`);
      }
    } catch (e) {
      throw e instanceof CliError ? e : fileError("write", dir, e);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const webhook = webhookConfiguration({ url: endpoint, cluster, ...(token !== undefined ? { token } : {}) });
    io.out(`${rendered.trimEnd()}\n---\n${stringify(webhook, { aliasDuplicateObjects: false })}`);
    return 0;
  },
};
