// What a CronJob of infra/k8s looks like on each path, for the tests of the
// base, the bundle component and the audit component alike.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { BUNDLE_PARTS } from "../../../infra/bundle/build.js";

/** The image name the CronJobs run; an overlay says where it is (kustomize `images:`). */
export const EDGEADMIT_IMAGE = "edgeadmit";

/** The Node version everything runs on: package.json's `node` devDependency, which the tests run on too. */
export const NODE_VERSION = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { devDependencies: { node: string } }).devDependencies.node;

/**
 * The digests the Node images of NODE_VERSION are pinned by (Dockerfile, the
 * bundle component): each tag's multi-platform index as Docker's
 * official-images record gives it (github.com/docker-library/repo-info,
 * repos/node/remote/<tag>.md). A new NODE_VERSION fails the tests until both
 * are read anew for it.
 */
export const NODE_IMAGE_DIGESTS: Readonly<Record<string, { full: string; slim: string }>> = {
  "24.21.0": { full: "sha256:22553920add6fb1fd909104346924cd30b4b3ac76ca2980f3b8dba8ede3cf945", slim: "sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6" },
};

/** The pinned Node image of NODE_VERSION: `node:<version>[-slim]@sha256:…`. */
export function nodeImage(variant: "full" | "slim"): string {
  const digests = NODE_IMAGE_DIGESTS[NODE_VERSION];
  if (!digests) throw new Error(`no image digests recorded for Node ${NODE_VERSION} in test/node/support/bundled.ts`);
  return `node:${NODE_VERSION}${variant === "slim" ? "-slim" : ""}@${digests[variant]}`;
}

type Doc = Record<string, any>;

/** A CronJob (or the bundle component's patch) on the ConfigMap path: the Node image of NODE_VERSION unpacks every part, in order, and runs the CLI with the CronJob's args. */
export function checkBundled(cronJob: Doc, bundleConfigMaps: readonly string[]): void {
  const pod = cronJob.spec.jobTemplate.spec.template.spec;
  const [container] = pod.containers as Doc[];
  expect(container!.image).toBe(nodeImage("slim"));
  const [shell, flag, script, name] = container!.command as string[];
  expect([shell, flag, name]).toEqual(["sh", "-c", "edgeadmit"]);
  expect([...script!.matchAll(/edgeadmit\.mjs\.gz\.part(\d)/g)].map((m) => Number(m[1]))).toEqual(Array.from({ length: BUNDLE_PARTS }, (_, i) => i));
  expect(script).toMatch(/exec node \/run\/edgeadmit\/edgeadmit\.mjs "\$@"$/);
  const bundle = (pod.volumes as Doc[]).find((v) => v.name === "bundle");
  expect(bundle?.projected.sources.map((s: Doc) => s.configMap.name)).toEqual(bundleConfigMaps);
  expect((pod.volumes as Doc[]).find((v) => v.name === "run")?.emptyDir).toMatchObject({ medium: "Memory" });
  expect((container!.volumeMounts as Doc[]).map((m) => m.mountPath)).toEqual(expect.arrayContaining(["/opt/edgeadmit/bundle", "/run/edgeadmit"]));
}
