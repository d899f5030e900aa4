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
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, refuseSecretOutput } from "./secrets.js";
import type { Verb } from "./verb.js";

/** The base's kustomization, found from where this module runs (the source tree, or its build under .edgeadmit/run). */
function baseDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "infra", "k8s", "kustomization.yaml"))) return join(dir, "infra", "k8s");
    if (dirname(dir) === dir) throw new CliError("install renders infra/k8s of the edgeadmit source tree, and none is above this program: run it from a clone (npx edgeadmit install …)");
  }
}

/** How the CronJob gets the CLI: an image of the Dockerfile the cluster pulls, or the bundle in ConfigMaps on node:24. */
type Runtime = { image: { newName: string; newTag?: string; digest?: string } } | { bundle: true };

/** `registry.example.com/edgeadmit:0.1.0` (or `…@sha256:…`) as kustomize's images entry for the base's `image: edgeadmit`. */
function imageOf(reference: string): Runtime {
  const at = reference.indexOf("@");
  if (at > 0) return { image: { newName: reference.slice(0, at), digest: reference.slice(at + 1) } };
  const colon = reference.lastIndexOf(":");
  // A colon before the last slash is a registry's port (localhost:5000/edgeadmit), not a tag.
  return colon > reference.lastIndexOf("/") ? { image: { newName: reference.slice(0, colon), newTag: reference.slice(colon + 1) } } : { image: { newName: reference } };
}

/** An image reference: name[:tag][@digest], lowercase path components, as a container runtime takes it. */
const IMAGE_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** The overlay's kustomization: the base, this cluster's endpoint and id, how the CLI runs, and the Secret when a key is given. */
function overlay(base: string, endpoint: string, cluster: string, runtime: Runtime, withKey: boolean): string {
  return stringify({
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [base],
    ...("image" in runtime ? { images: [{ name: "edgeadmit", ...runtime.image }] } : { components: [`${base}/bundle`] }),
    configMapGenerator: [{ name: "edgeadmit-sync", behavior: "replace", literals: [`endpoint=${endpoint}`, `cluster=${cluster}`] }],
    ...(withKey
      ? { secretGenerator: [{ name: "edgeadmit-signing-key", namespace: "edgeadmit-system", files: ["edgeadmit.key"], options: { disableNameSuffixHash: true } }] }
      : {}),
  });
}

export const install: Verb = {
  name: "install",
  summary: "print everything a cluster needs (infra/k8s for its endpoint and id, the key Secret, the webhook) for kubectl apply -f -",
  usage: `edgeadmit install --cluster ID --endpoint https://HOST (--image REF | --bundle) [--key FILE] [--token-file FILE] [--${ALLOW_UNIGNORED}]

Prints, for kubectl apply -f -: the kustomize base infra/k8s (namespace, CRDs,
RBAC, the sync CronJob and its ConfigMap) with --endpoint and --cluster set,
rendered by kubectl kustomize (kubectl must be on the PATH); with --key, the
Secret edgeadmit-signing-key holding that private key; then the
ValidatingWebhookConfiguration edgeadmit webhook-config prints (--token-file:
the token in its URL, for managed control planes). Without --key, create the
Secret yourself (docs/operations.md). The settings ConfigMap stays apart
(examples/profiles), so applying this again never resets it.
The CronJob runs the CLI from --image REF (your build of the Dockerfile,
pushed where the cluster pulls: registry.example.com/edgeadmit:0.1.0, or
@sha256:…), or with --bundle from the CLI bundled into ConfigMaps on the
stock node:24 image (npm run bundle:infra first). One of them is required:
no registry serves the base's placeholder image "edgeadmit".
With --key or --token-file the output holds a secret: inside a git work tree,
stdout redirected to a file (> x.yaml) git does not ignore is refused;
--${ALLOW_UNIGNORED} writes it anyway.

Examples:
  edgeadmit install --cluster prod-eu --endpoint https://edgeadmit.example.com --image registry.example.com/edgeadmit:0.1.0 --key ./keys/prod-eu/edgeadmit.key | kubectl apply -f -
  npm run bundle:infra && edgeadmit install --cluster prod-eu --endpoint https://edgeadmit.example.com --bundle --key ./keys/prod-eu/edgeadmit.key | kubectl apply -f -`,
  async run(argv, io) {
    const args = parseVerbArgs("install", argv, {
      cluster: { type: "string" },
      endpoint: { type: "string" },
      image: { type: "string" },
      bundle: { type: "boolean" },
      key: { type: "string" },
      "token-file": { type: "string" },
      ...ALLOW_UNIGNORED_FLAG,
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = requiredString("install", args, "cluster");
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const endpoint = requiredString("install", args, "endpoint");
    if (baseUrlOf("--endpoint", endpoint).protocol !== "https:") throw new CliError(`--endpoint must be https:// here: the kube-apiserver calls webhooks over TLS only, not "${endpoint}"`, EXIT_USAGE);
    const image = optionalString(args, "image");
    const bundle = args.values.bundle === true;
    if ((image === undefined) === !bundle)
      throw new CliError(
        bundle
          ? "--image and --bundle are two ways to run the CLI in the cluster: give one"
          : "give --image REF (your build of the Dockerfile, where the cluster pulls it) or --bundle (the CLI in ConfigMaps on node:24, after npm run bundle:infra): no registry serves the base's placeholder image \"edgeadmit\"",
        EXIT_USAGE,
      );
    if (image !== undefined && !IMAGE_REFERENCE.test(image)) throw new CliError(`--image ${JSON.stringify(image.slice(0, 200))} is not an image reference (registry.example.com/edgeadmit:0.1.0, or …@sha256:<64 hex>)`, EXIT_USAGE);
    const keyFile = optionalString(args, "key");
    const pem = keyFile === undefined ? undefined : await readPrivateKey(keyFile, io);
    const tokenFile = optionalString(args, "token-file");
    let token: string | undefined;
    if (tokenFile !== undefined) {
      token = (await readInput(tokenFile, io, "token file")).trim();
      if (!TOKEN_PATTERN.test(token)) throw new CliError(`--token-file ${tokenFile} does not hold a token (edgeadmit token --form url writes one)`, EXIT_USAGE);
    }

    if (pem !== undefined || token !== undefined)
      refuseSecretOutput(undefined, io, args.values[ALLOW_UNIGNORED] === true, pem !== undefined ? "the cluster's private signing key (in the Secret, --key)" : "the apiserver's token (in the webhook URL, --token-file)");
    const base = baseDir();
    if (bundle && !existsSync(join(base, "bundle", "edgeadmit.mjs.gz.part0")))
      throw new CliError("--bundle: the bundle is not built: run npm run bundle:infra first (it writes infra/k8s/bundle/edgeadmit.mjs.gz.part0..3)", EXIT_USAGE);
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-install-"));
    let rendered: string;
    try {
      writeFileSync(join(dir, "kustomization.yaml"), overlay(relative(dir, base), endpoint.replace(/\/+$/, ""), cluster, image !== undefined ? imageOf(image) : { bundle: true }, pem !== undefined));
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
