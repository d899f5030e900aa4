// `edgeadmit install` renders the kustomize base infra/k8s (plus the key
// Secret and the webhook configuration): the objects are the base's, held to
// `kubectl kustomize infra/k8s` itself (kubectl: Debian's kubernetes-client,
// which .ci/run installs).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";

const ROOT = join(__dirname, "..", "..");
const objectsOf = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string> });

describe("edgeadmit install", () => {
  it("renders exactly the base's objects for the base's endpoint and cluster, then the webhook configuration", async () => {
    const base = objectsOf(execFileSync("kubectl", ["kustomize", join(ROOT, "infra", "k8s")], { encoding: "utf8" }));
    const { code, stdout, stderr } = await runCli(["install", "--cluster", "my-cluster", "--endpoint", "https://edgeadmit.example.com"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const installed = objectsOf(stdout);
    expect(installed.slice(0, -1)).toEqual(base);
    expect(installed.at(-1)).toMatchObject({ kind: "ValidatingWebhookConfiguration", webhooks: [{ clientConfig: { url: "https://edgeadmit.example.com/v1/my-cluster/validate" } }] });
  }, 60_000);

  it("sets this cluster's endpoint and id, and the signing key's Secret the CronJob mounts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-install-"));
    expect((await runCli(["keygen", "--out", dir])).code).toBe(0);
    const { code, stdout } = await runCli(["install", "--cluster", "prod-eu", "--endpoint", "https://edgeadmit.example.com/", "--key", join(dir, "edgeadmit.key")]);
    expect(code).toBe(0);
    const objects = objectsOf(stdout);
    const configMap = objects.find((object) => object.kind === "ConfigMap")!;
    expect(configMap.data).toEqual({ endpoint: "https://edgeadmit.example.com", cluster: "prod-eu" });
    const cronJob = JSON.stringify(objects.find((object) => object.kind === "CronJob"));
    expect(cronJob).toContain(`"name":"${configMap.metadata.name}"`); // kustomize's hashed name, referenced
    const secret = objects.find((object) => object.kind === "Secret")!;
    expect(secret.metadata).toEqual({ name: "edgeadmit-signing-key", namespace: "edgeadmit-system" });
    expect(Buffer.from(secret.data!["edgeadmit.key"]!, "base64").toString("utf8")).toBe(readFileSync(join(dir, "edgeadmit.key"), "utf8"));
  }, 60_000);

  it("refuses what the apiserver could not call: exit 2", async () => {
    expect(await runCli(["install", "--cluster", "c", "--endpoint", "http://edgeadmit.example.com"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit install: --endpoint must be https:// here: the kube-apiserver calls webhooks over TLS only, not "http://edgeadmit.example.com"\n',
    });
  });
});
