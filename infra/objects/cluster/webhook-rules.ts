// The rules of the function's ValidatingWebhookConfiguration as the cluster
// holds it: pushed as the snapshot's webhookRules, so the function knows what
// the apiserver sends it (coverage, and what bound policies can match).
// Named imports, so the CronJob's bundle keeps only these parts of client-node.
import { ApiException } from "@kubernetes/client-node";
import * as z from "zod/mini";
import "../../../shared/zod/index.js";
import { CliError, EXIT_USAGE } from "../../base/errors.js";
import { WEBHOOK_CONFIGURATION_NAME, type WebhookRule } from "../../webhook/index.js";
import { requestFailure } from "./failures.js";
import type { WireApi } from "./wire-api.js";

const webhookSchema = z.looseObject({
  webhooks: z.optional(z.nullable(z.array(z.looseObject({ rules: z.optional(z.nullable(z.array(z.looseObject({
    apiGroups: z._default(z.array(z.string()), []),
    apiVersions: z._default(z.array(z.string()), []),
    resources: z._default(z.array(z.string()), []),
    operations: z._default(z.array(z.string()), []),
    scope: z._default(z.enum(["Cluster", "Namespaced", "*"]), "*"),
  })))) })))),
});

/** The rules of every webhook in the function's ValidatingWebhookConfiguration, or undefined (with a warning) when it cannot be read. */
export async function readWebhookRules(api: WireApi, server: string, warnings: string[]): Promise<WebhookRule[] | undefined> {
  const name = WEBHOOK_CONFIGURATION_NAME;
  let response: unknown;
  try {
    response = await api.get(`/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`);
  } catch (e) {
    if (e instanceof ApiException && e.code === 404) {
      warnings.push(`no ValidatingWebhookConfiguration ${name}: the apiserver sends the function nothing, so no policy is enforced at the edge and the function's coverage stays unknown (edgeadmit webhook-config renders it)`);
      return undefined;
    }
    if (e instanceof ApiException && e.code === 403) {
      warnings.push(`RBAC forbids reading ValidatingWebhookConfiguration ${name}: cannot check that it sends what the policies bound at the edge match, and the function's coverage stays unknown (infra/k8s/rbac.yaml grants it)`);
      return undefined;
    }
    throw requestFailure(e, "get", `validatingwebhookconfigurations/${name}`, server);
  }
  const parsed = webhookSchema.safeParse(response);
  if (!parsed.success) throw new CliError(`get validatingwebhookconfigurations/${name}: the API server's answer is not a ValidatingWebhookConfiguration`, EXIT_USAGE);
  return (parsed.data.webhooks ?? []).flatMap((webhook) => webhook.rules ?? []);
}
