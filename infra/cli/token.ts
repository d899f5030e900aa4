// `edgeadmit token`: the bearer token a cluster's kube-apiserver presents to
// the function, and what the apiserver needs to present it. The function keeps
// only the token's SHA-256 (CLUSTERS `tokenHashes`).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { clusterIdError } from "../../shared/clusters/index.js";
import { generateToken, tokenHash, TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { choice, optionalString, parseVerbArgs, requiredString } from "./args.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { routeInBaseUrl, validateUrl } from "../webhook/index.js";
import type { Verb } from "./verb.js";

const TOKEN_FILE = "edgeadmit.token";
const KUBECONFIG_FILE = "webhook-kubeconfig.yaml";
const ADMISSION_CONFIGURATION_FILE = "admission-configuration.yaml";
/** Where the apiserver reads the kubeconfig: on the control-plane nodes, next to its own configuration. */
const DEFAULT_KUBECONFIG_PATH = "/etc/kubernetes/edgeadmit/webhook-kubeconfig.yaml";

const FORMS = ["header", "url"] as const;

/**
 * The kubeconfig the apiserver reads a webhook's credential from: it picks
 * the user whose name is the webhook's host (with the port, when not 443).
 */
function webhookKubeconfig(host: string, token: string) {
  return { apiVersion: "v1", kind: "Config", users: [{ name: host, user: { token } }] };
}

/** The file given to the apiserver's --admission-control-config-file. */
function admissionConfiguration(kubeconfigPath: string) {
  return {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: [
      {
        name: "ValidatingAdmissionWebhook",
        configuration: { apiVersion: "apiserver.config.k8s.io/v1", kind: "WebhookAdmissionConfiguration", kubeConfigFile: kubeconfigPath },
      },
    ],
  };
}

function write(file: string, text: string): void {
  try {
    writeFileSync(file, text, { mode: 0o600 });
  } catch (e) {
    throw fileError("write", file, e);
  }
}

export const token: Verb = {
  name: "token",
  summary: "make or rotate the token a cluster's apiserver presents; print what the apiserver and CLUSTERS need",
  usage: `edgeadmit token --cluster ID --url https://HOST --out DIR [--form header|url] [--rotate] [--kubeconfig-path PATH]

Makes a token (256 random bits) into DIR/${TOKEN_FILE} (mode 0600) and prints
the "tokenHashes" entry for the cluster's CLUSTERS registration: the function
stores the token's SHA-256, never the token.

--form header (default; self-managed control planes): also writes
DIR/${KUBECONFIG_FILE} (the token, for the webhook's host) and
DIR/${ADMISSION_CONFIGURATION_FILE}, which points the apiserver at it. Copy both
to every control-plane node (the kubeconfig to --kubeconfig-path, default
${DEFAULT_KUBECONFIG_PATH}) and start the apiserver with
--admission-control-config-file=<that admission configuration>.

--form url (EKS, GKE, AKS: no apiserver flags): prints the webhook URL with
the token in its path; give it to webhook-config with --token-file. Anyone who
can read the ValidatingWebhookConfiguration, or sees the apiserver's webhook
errors (they print the URL), sees the token: it keeps out the internet, not
the cluster's own users (docs/operations.md).

--rotate: DIR already holds a token; it moves to ${TOKEN_FILE}.previous and both
hashes are printed, so CLUSTERS accepts either while the apiserver moves over.

Examples:
  edgeadmit token --cluster prod-eu --url https://edgeadmit.example.com --out ./keys/prod-eu
  edgeadmit token --cluster prod-eu --url https://edgeadmit.example.com --out ./keys/prod-eu --rotate`,
  async run(argv, io) {
    const args = parseVerbArgs("token", argv, {
      cluster: { type: "string" },
      url: { type: "string" },
      out: { type: "string" },
      form: { type: "string" },
      rotate: { type: "boolean" },
      "kubeconfig-path": { type: "string" },
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = requiredString("token", args, "cluster");
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const base = requiredString("token", args, "url");
    let url: URL | undefined;
    try {
      url = new URL(base);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== "https:") throw new CliError(`--url must be the function's https:// base URL, not "${base}"`, EXIT_USAGE);
    const routeError = routeInBaseUrl(url);
    if (routeError) throw new CliError(routeError, EXIT_USAGE);
    const host = url.host;
    const dir = requiredString("token", args, "out");
    const form = choice("form", optionalString(args, "form"), FORMS, "header");
    const kubeconfigPath = optionalString(args, "kubeconfig-path") ?? DEFAULT_KUBECONFIG_PATH;

    const tokenFile = join(dir, TOKEN_FILE);
    const hashes: string[] = [];
    if (existsSync(tokenFile)) {
      if (args.values.rotate !== true) throw new CliError(`${tokenFile} already exists: not replacing a token (--rotate keeps it as the previous one)`);
      const previous = readFileSync(tokenFile, "utf8").trim();
      if (!TOKEN_PATTERN.test(previous)) throw new CliError(`${tokenFile} does not hold a token`);
      renameSync(tokenFile, `${tokenFile}.previous`);
      hashes.push(await tokenHash(previous));
    } else if (args.values.rotate === true) throw new CliError(`--rotate needs the current token in ${tokenFile}, and there is none`);

    const fresh = generateToken();
    hashes.push(await tokenHash(fresh));
    mkdirSync(dir, { recursive: true });
    write(tokenFile, `${fresh}\n`);
    const written = [tokenFile];
    if (form === "header") {
      write(join(dir, KUBECONFIG_FILE), stringify(webhookKubeconfig(host, fresh)));
      write(join(dir, ADMISSION_CONFIGURATION_FILE), stringify(admissionConfiguration(kubeconfigPath)));
      written.push(join(dir, KUBECONFIG_FILE), join(dir, ADMISSION_CONFIGURATION_FILE));
    }
    io.out(`${JSON.stringify({ tokenHashes: hashes })}\n`);
    // The URL for control planes that cannot present a token (EKS, GKE, AKS).
    if (form === "url") io.out(`${validateUrl(base, cluster, fresh)}\n`);
    const next =
      form === "header"
        ? `copy ${KUBECONFIG_FILE} to ${kubeconfigPath} and ${ADMISSION_CONFIGURATION_FILE} to each control-plane node; start the apiserver with --admission-control-config-file`
        : `edgeadmit webhook-config --url ${base} --cluster ${cluster} --token-file ${tokenFile} | kubectl apply -f -`;
    io.err(
      `wrote ${written.join(", ")} (mode 0600); add the tokenHashes above to the "${cluster}" entry of the function's CLUSTERS, then: ${next}${hashes.length > 1 ? "; once the apiserver uses the new token, drop the first hash" : ""}\n`,
    );
    return 0;
  },
};
