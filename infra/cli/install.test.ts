// `edgeadmit install` renders the kustomize base infra/k8s (plus the key
// Secret and the webhook configuration): the objects are the base's, held to
// `kubectl kustomize infra/k8s` itself (kubectl: Debian's kubernetes-client,
// which .ci/run installs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../../test/node/support/test-io.js";
import { BUNDLE_PARTS, bundleCli, partFile, partsOf } from "../bundle/build.js";

const ROOT = join(__dirname, "..", "..");
const objectsOf = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string> });

describe("edgeadmit install", () => {
  it("renders exactly the base's objects for the base's endpoint and cluster, then the webhook configuration", async () => {
    const base = objectsOf(execFileSync("kubectl", ["kustomize", join(ROOT, "infra", "k8s")], { encoding: "utf8" }));
    const { code, stdout, stderr } = await runCli(["install", "--cluster", "my-cluster", "--endpoint", "https://edgeadmit.example.com", "--image", "edgeadmit"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const installed = objectsOf(stdout);
    expect(installed.slice(0, -1)).toEqual(base);
    expect(installed.at(-1)).toMatchObject({ kind: "ValidatingWebhookConfiguration", webhooks: [{ clientConfig: { url: "https://edgeadmit.example.com/v1/my-cluster/validate" } }] });
  }, 60_000);

  it("sets this cluster's endpoint and id, and the signing key's Secret the CronJob mounts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgeadmit-install-"));
    expect((await runCli(["keygen", "--out", dir])).code).toBe(0);
    const { code, stdout } = await runCli(["install", "--cluster", "prod-eu", "--endpoint", "https://edgeadmit.example.com/", "--image", "registry.example.com/edgeadmit:0.1.0", "--key", join(dir, "edgeadmit.key")]);
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

  it("runs the CronJob on the image given (a tag, a digest, a registry's port), or on the bundle in ConfigMaps", async () => {
    const imageOf = async (...flags: string[]) => {
      const { code, stdout } = await runCli(["install", "--cluster", "c", "--endpoint", "https://h", ...flags]);
      expect(code).toBe(0);
      return (objectsOf(stdout).find((object) => object.kind === "CronJob") as unknown as { spec: { jobTemplate: { spec: { template: { spec: { containers: Array<{ image: string }> } } } } } }).spec.jobTemplate.spec.template.spec.containers[0]!.image;
    };
    expect(await imageOf("--image", "registry.example.com/edgeadmit:0.1.0")).toBe("registry.example.com/edgeadmit:0.1.0");
    expect(await imageOf("--image", "localhost:5000/team/edgeadmit")).toBe("localhost:5000/team/edgeadmit");
    const digest = `sha256:${"ab".repeat(32)}`;
    expect(await imageOf("--image", `registry.example.com/edgeadmit@${digest}`)).toBe(`registry.example.com/edgeadmit@${digest}`);
    // The parts npm run bundle:infra writes (as infra/k8s/k8s.test.ts writes them, when no run did yet).
    if (!existsSync(partFile(0))) partsOf((await bundleCli()).gzip).forEach((part, i) => writeFileSync(partFile(i), part));
    const bundled = await runCli(["install", "--cluster", "c", "--endpoint", "https://h", "--bundle"]);
    expect(bundled.code).toBe(0);
    const objects = objectsOf(bundled.stdout);
    expect(objects.filter((object) => object.kind === "ConfigMap" && object.metadata.name.startsWith("edgeadmit-bundle-")).length).toBe(BUNDLE_PARTS);
    expect(JSON.stringify(objects.find((object) => object.kind === "CronJob"))).toContain('"image":"node:24');
  }, 120_000);

  it("refuses what could not run: no image (the base's placeholder is served by no registry), both ways, a reference that is none: exit 2", async () => {
    const flags = ["install", "--cluster", "c", "--endpoint", "https://h"];
    expect(await runCli(flags)).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit install: give --image REF (your build of the Dockerfile, where the cluster pulls it) or --bundle (the CLI in ConfigMaps on node:24, after npm run bundle:infra): no registry serves the base\'s placeholder image "edgeadmit"\n',
    });
    expect((await runCli([...flags, "--image", "r/e:1", "--bundle"])).stderr).toBe("edgeadmit install: --image and --bundle are two ways to run the CLI in the cluster: give one\n");
    expect((await runCli([...flags, "--image", "Registry/Edge Admit"])).stderr).toBe('edgeadmit install: --image "Registry/Edge Admit" is not an image reference (registry.example.com/edgeadmit:0.1.0, or …@sha256:<64 hex>)\n');
  });

  it("refuses what the apiserver could not call: exit 2", async () => {
    expect(await runCli(["install", "--cluster", "c", "--endpoint", "http://edgeadmit.example.com", "--image", "edgeadmit"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'edgeadmit install: --endpoint must be https:// here: the kube-apiserver calls webhooks over TLS only, not "http://edgeadmit.example.com"\n',
    });
  });
});
