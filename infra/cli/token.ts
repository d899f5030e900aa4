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
import { baseUrlOf } from "./endpoint.js";
import { PUBLIC_KEY_FILE, registrationLine } from "./keygen.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, ALLOW_UNIGNORED_HELP, refuseUnignoredSecrets } from "./secrets.js";
import { validateUrl } from "../webhook/index.js";
import type { Verb } from "./verb.js";

export const TOKEN_FILE = "edgeadmit.token";
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
  usage: `edgeadmit token --cluster ID --url https://HOST --out DIR [--form header|url] [--rotate] [--kubeconfig-path PATH] [--${ALLOW_UNIGNORED}]

Makes a token (256 random bits) into DIR/${TOKEN_FILE} (mode 0600) and prints
the "tokenHashes" entry for the cluster's CLUSTERS registration: the function
stores the token's SHA-256, never the token. When DIR also holds the cluster's
${PUBLIC_KEY_FILE} (edgeadmit keygen --out DIR), the next line is the cluster's
whole CLUSTERS entry. A token already in DIR is kept (run it again for the
other --form); --rotate replaces it. --url may be http:// only on this machine
(127.0.0.1, localhost, [::1]: npm start).

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

${ALLOW_UNIGNORED_HELP}

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
      ...ALLOW_UNIGNORED_FLAG,
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const cluster = requiredString("token", args, "cluster");
    const idError = clusterIdError(cluster);
    if (idError) throw new CliError(`--cluster: ${idError}`, EXIT_USAGE);
    const base = requiredString("token", args, "url");
    const url = baseUrlOf("--url", base, { localHttp: true });
    const host = url.host;
    const dir = requiredString("token", args, "out");
    const form = choice("form", optionalString(args, "form"), FORMS, "header");
    const kubeconfigPath = optionalString(args, "kubeconfig-path") ?? DEFAULT_KUBECONFIG_PATH;

    const tokenFile = join(dir, TOKEN_FILE);
    const kubeconfigFile = join(dir, KUBECONFIG_FILE);
    refuseUnignoredSecrets(form === "header" ? [tokenFile, `${tokenFile}.previous`, kubeconfigFile] : [tokenFile, `${tokenFile}.previous`], args.values[ALLOW_UNIGNORED] === true);
    const rotate = args.values.rotate === true;
    let current: string | undefined;
    if (existsSync(tokenFile)) {
      current = readFileSync(tokenFile, "utf8").trim();
      if (!TOKEN_PATTERN.test(current)) throw new CliError(`${tokenFile} does not hold a token`);
    } else if (rotate) throw new CliError(`--rotate needs the current token in ${tokenFile}, and there is none`);

    const hashes: string[] = [];
    let fresh: string;
    if (current !== undefined && !rotate) {
      // Run again (the other --form, a lost kubeconfig): the same token, so what the apiserver holds stays valid.
      fresh = current;
    } else {
      if (current !== undefined) {
        renameSync(tokenFile, `${tokenFile}.previous`);
        hashes.push(await tokenHash(current));
      }
      fresh = generateToken();
      mkdirSync(dir, { recursive: true });
      write(tokenFile, `${fresh}\n`);
    }
    hashes.push(await tokenHash(fresh));
    const written = current !== undefined && !rotate ? [] : [tokenFile];
    if (form === "header") {
      write(kubeconfigFile, stringify(webhookKubeconfig(host, fresh)));
      write(join(dir, ADMISSION_CONFIGURATION_FILE), stringify(admissionConfiguration(kubeconfigPath)));
      written.push(kubeconfigFile, join(dir, ADMISSION_CONFIGURATION_FILE));
    }
    io.out(`${JSON.stringify({ tokenHashes: hashes })}\n`);
    const registration = await registrationLine(dir, cluster, hashes);
    if (registration !== undefined) io.out(`${registration}\n`);
    // The URL for control planes that cannot present a token (EKS, GKE, AKS).
    if (form === "url") io.out(`${validateUrl(base, cluster, fresh)}\n`);
    const next =
      form === "header"
        ? `copy ${KUBECONFIG_FILE} to ${kubeconfigPath} and ${ADMISSION_CONFIGURATION_FILE} to each control-plane node; start the apiserver with --admission-control-config-file`
        : `edgeadmit webhook-config --url ${base} --cluster ${cluster} --token-file ${tokenFile} | kubectl apply -f -`;
    const kept = current !== undefined && !rotate ? `kept the token already in ${tokenFile} (--rotate replaces it); ` : "";
    const entry = registration !== undefined ? `the line after them is the cluster's whole CLUSTERS entry` : `add the tokenHashes above to the "${cluster}" entry of the function's CLUSTERS`;
    io.err(
      `${kept}${written.length > 0 ? `wrote ${written.join(", ")} (mode 0600); ` : ""}${entry}, then: ${next}${hashes.length > 1 ? "; once the apiserver uses the new token, drop the first hash" : ""}\n`,
    );
    return 0;
  },
};
