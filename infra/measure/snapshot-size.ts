// Snapshot bytes per 1,000 applications, on a synthetic CozyStack cluster:
// `node scripts/tsrun.mjs infra/measure/snapshot-size.ts [applications...]`.
// Each application is a HelmRelease with lineage and class labels and, in
// the second set of columns, a ReadWriteOnce PVC its StatefulSet mounts; ten
// applications per tenant.
import { gzipSync } from "node:zlib";
import { buildSnapshot, type KubeObject } from "../../shared/snapshot/builder/index.js";

function syntheticCluster(applications: number, withVolumes: boolean): KubeObject[] {
  const objects: KubeObject[] = ["dc1", "dc2", "dc3"].map((zone) => ({
    apiVersion: "cozystack.io/v1alpha1",
    kind: "AffinityClass",
    metadata: { name: zone },
    spec: { nodeSelector: { "topology.kubernetes.io/zone": zone } },
  }));
  objects.push({ apiVersion: "apps.cozystack.io/v1alpha1", kind: "Tenant", metadata: { name: "root", namespace: "tenant-root" }, spec: {} });
  for (let t = 0; t < Math.ceil(applications / 10); t++)
    objects.push({
      apiVersion: "apps.cozystack.io/v1alpha1",
      kind: "Tenant",
      metadata: { name: `team-${t}`, namespace: "tenant-root" },
      spec: { allowedAffinityClasses: ["dc1", "dc2"], defaultAffinityClass: "dc1" },
    });
  for (let a = 0; a < applications; a++) {
    const namespace = `tenant-team-${Math.floor(a / 10)}`;
    const name = `postgres-${a}`;
    objects.push({
      apiVersion: "helm.toolkit.fluxcd.io/v2",
      kind: "HelmRelease",
      metadata: {
        name,
        namespace,
        labels: {
          "apps.cozystack.io/application.group": "apps.cozystack.io",
          "apps.cozystack.io/application.kind": "Postgres",
          "apps.cozystack.io/application.name": name,
          "apps.cozystack.io/affinity-class": a % 2 ? "dc1" : "dc2",
        },
      },
    });
    if (!withVolumes) continue;
    objects.push(
      { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: `data-${name}`, namespace }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: "replicated" } },
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name, namespace },
        spec: {
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: "db", image: "postgres" }], volumes: [{ name: "data", persistentVolumeClaim: { claimName: `data-${name}` } }] },
          },
        },
      },
    );
  }
  return objects;
}

if (process.argv[1]?.endsWith("snapshot-size.ts")) {
  const counts = process.argv.slice(2).map(Number);
  const size = (count: number, withVolumes: boolean) => {
    const { snapshot } = buildSnapshot(syntheticCluster(count, withVolumes), { generation: Date.now(), builtAt: new Date().toISOString() });
    const json = JSON.stringify(snapshot);
    return { bytes: Buffer.byteLength(json), gzipped: gzipSync(json).length };
  };
  const column = (n: number, width: number) => String(n).padStart(width);
  console.log("              applications only           with a mounted RWO PVC each");
  console.log("applications  bytes      gzip     /1,000  bytes      gzip     /1,000");
  for (const count of counts.length > 0 ? counts : [1_000, 10_000, 100_000]) {
    const plain = size(count, false);
    const volumes = size(count, true);
    console.log(
      `${column(count, 12)}  ${column(plain.bytes, 9)}  ${column(plain.gzipped, 7)}  ${column(Math.round((plain.bytes / count) * 1000), 6)}  ${column(volumes.bytes, 9)}  ${column(volumes.gzipped, 7)}  ${column(Math.round((volumes.bytes / count) * 1000), 6)}`,
    );
  }
}
