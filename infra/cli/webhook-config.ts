// `edgeadmit webhook-config`: the ValidatingWebhookConfiguration for a cluster.
import { X509Certificate } from "node:crypto";
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { TOKEN_PATTERN } from "../../shared/tokens/index.js";
import { DEFAULT_TIMEOUT_SECONDS, FAILURE_POLICIES, webhookConfiguration, webhookOptionsError, type WebhookOptions } from "../webhook/index.js";
import { JOB_NAMESPACE } from "../base/job.js";
import { decodeSnapshot } from "../../shared/snapshot/index.js";
import { policySetOf } from "../../shared/vap/index.js";
import { fleetRulesFor } from "../../shared/fleet/index.js";
import { currentFleet } from "../client/fleet.js";
import { listRegistry } from "../client/registry.js";
import { readPrivateKey } from "./keygen.js";
import { choice, optionalString, parseVerbArgs, requiredString } from "./args.js";
import { CliError, EXIT_USAGE, fileError } from "../base/errors.js";
import { ALLOW_UNIGNORED, ALLOW_UNIGNORED_FLAG, refuseSecretOutput } from "./secrets.js";
import { readInput } from "../base/io.js";
import type { Verb } from "./verb.js";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * The PEM certificates of a --ca-bundle file, each one Node can read: the
 * apiserver would otherwise take the configuration and fail every call's TLS
 * handshake, which shows only in its log. A private key (or anything else)
 * beside them is refused, never copied into a cluster object.
 */
function certificates(pem: string, file: string): string {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0 || pem.replace(PEM_CERTIFICATE, "").trim() !== "")
    throw new CliError(`--ca-bundle ${file} must hold PEM certificates (-----BEGIN CERTIFICATE-----) and nothing else: never a private key`, EXIT_USAGE);
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (e) {
      throw new CliError(`--ca-bundle ${file}: certificate ${i + 1} cannot be read (${(e as Error).message})`, EXIT_USAGE);
    }
  });
  return `${blocks.join("\n")}\n`;
}

export const webhookConfig: Verb = {
  name: "webhook-config",
  summary: "print the ValidatingWebhookConfiguration that points a cluster at the function",
  usage: `edgeadmit webhook-config --url https://HOST --cluster ID [--token-file FILE] [--ca-bundle FILE] [--snapshot FILE] [--operator-key FILE [--endpoint URL]] [--failure-policy Fail|Ignore] [--timeout SECONDS] [-o FILE] [--${ALLOW_UNIGNORED}]

--url is the function's base URL (https://HOST, or https://HOST/PREFIX when it
is served under a path), not a route of it. clientConfig.url is
<URL>/v1/<ID>/validate; with --token-file (a token edgeadmit token --form url
wrote: managed control planes, which cannot present one in a header) it is
<URL>/v1/<ID>/token/<token>/validate, readable by whoever can read the
configuration (docs/operations.md: the token in the URL). So with
--token-file the configuration is a secret: inside a git work tree it is
written (-o FILE, or stdout redirected to a file) only where git ignores it,
never into a GitOps repository to commit; --${ALLOW_UNIGNORED} writes it anyway.
--ca-bundle (PEM certificates) becomes clientConfig.caBundle, the CA the
apiserver trusts for the URL's TLS: a function served with a certificate of
your own, such as a local one for a kind cluster (docs/local-kind.md);
without it the apiserver trusts the system's roots.
The rules cover the built-in policies and, with --snapshot (a built snapshot,
- for stdin), the resource rules of the cluster's ValidatingAdmissionPolicies
bound at the edge, and with --operator-key (the operator's private key) the
resource rules of the fleet policies the function's fleet set can bind on the
cluster by its registered labels, in any wave, active or not, so a promotion
needs no new render (docs/fleet.md; read from --endpoint, by default --url):
the apiserver sends the function everything they match.
Defaults: --failure-policy Fail, --timeout ${DEFAULT_TIMEOUT_SECONDS}. kube-system and ${JOB_NAMESPACE} are
never judged, so the sync job can always run (docs/operations.md: when the
function is unreachable).

Examples:
  edgeadmit webhook-config --url https://edgeadmit.example.com --cluster prod-eu | kubectl apply -f -
  edgeadmit webhook-config --url https://edgeadmit.example.com --cluster prod-eu --token-file ./keys/prod-eu/edgeadmit.token | kubectl apply -f -
  edgeadmit snapshot build --from-cluster | edgeadmit webhook-config --url https://edgeadmit.example.com --cluster prod-eu --snapshot - | kubectl apply -f -`,
  async run(argv, io) {
    const args = parseVerbArgs("webhook-config", argv, {
      url: { type: "string" },
      cluster: { type: "string" },
      "token-file": { type: "string" },
      "ca-bundle": { type: "string" },
      snapshot: { type: "string" },
      "operator-key": { type: "string" },
      endpoint: { type: "string" },
      "failure-policy": { type: "string" },
      timeout: { type: "string" },
      output: { type: "string", short: "o" },
      ...ALLOW_UNIGNORED_FLAG,
    });
    if (args.help) {
      io.out(`${this.usage}\n`);
      return 0;
    }
    const timeout = optionalString(args, "timeout");
    if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new CliError(`--timeout must be whole seconds, not "${timeout}"`, EXIT_USAGE);
    const options: WebhookOptions = {
      url: requiredString("webhook-config", args, "url"),
      cluster: requiredString("webhook-config", args, "cluster"),
      failurePolicy: choice("failure-policy", optionalString(args, "failure-policy"), FAILURE_POLICIES, "Fail"),
      timeoutSeconds: timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(timeout),
    };
    const error = webhookOptionsError(options);
    if (error) throw new CliError(error, EXIT_USAGE);
    const tokenFile = optionalString(args, "token-file");
    if (tokenFile !== undefined) {
      const token = (await readInput(tokenFile, io, "token file")).trim();
      if (!TOKEN_PATTERN.test(token)) throw new CliError(`--token-file ${tokenFile} does not hold a token (edgeadmit token --form url writes one)`);
      options.token = token;
    }
    const output = optionalString(args, "output");
    if (options.token !== undefined) refuseSecretOutput(output, io, args.values[ALLOW_UNIGNORED] === true, "the apiserver's token (in the webhook URL, --token-file)");
    const caBundleFile = optionalString(args, "ca-bundle");
    if (caBundleFile !== undefined) {
      options.caBundle = certificates(await readInput(caBundleFile, io, "CA bundle"), caBundleFile);
    }
    const snapshotFile = optionalString(args, "snapshot");
    if (snapshotFile !== undefined) {
      const decoded = decodeSnapshot(await readInput(snapshotFile, io, "snapshot"));
      if (!decoded.ok) throw new CliError(`${snapshotFile === "-" ? "<stdin>" : snapshotFile}: ${decoded.error}`);
      options.policyRules = policySetOf(decoded.snapshot).rules;
    }
    const operatorKeyFile = optionalString(args, "operator-key");
    if (operatorKeyFile !== undefined) {
      const key = await readPrivateKey(operatorKeyFile, io, "--operator-key");
      const endpoint = optionalString(args, "endpoint") ?? options.url;
      const [listing, fleet] = await Promise.all([listRegistry(endpoint, key), currentFleet(endpoint, key)]);
      const registration = listing.clusters.find((entry) => entry.cluster === options.cluster);
      if (!registration) throw new CliError(`cluster ${options.cluster} is not in the function's registry: the fleet selects registered clusters by their labels`);
      if (fleet.set) options.policyRules = [...(options.policyRules ?? []), ...fleetRulesFor(fleet.set, registration.labels ?? {})];
    }
    // No YAML anchors for the repeated operations lists: plain lists read better in kubectl diffs.
    const yaml = stringify(webhookConfiguration(options), { aliasDuplicateObjects: false });
    if (output === undefined || output === "-") io.out(yaml);
    else {
      try {
        writeFileSync(output, yaml, options.token !== undefined ? { mode: 0o600 } : {});
      } catch (e) {
        throw fileError("write", output, e);
      }
      io.err(`wrote ${output}\n`);
    }
    return 0;
  },
};
