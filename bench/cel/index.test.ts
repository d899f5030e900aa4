// Measures, prints, asserts only results (timings vary by machine):
// compiling 60 typical ValidatingAdmissionPolicy expressions on a cold
// module, and evaluating one on a 6-container Deployment.

import { describe, expect, it } from "vitest";
import { compile, createBudget, createEnv, type Program, type Value } from "../../shared/cel/index.js";
import { KUBERNETES_LIBRARIES } from "../../shared/cel/kubernetes/index.js";

const containers = "object.spec.template.spec.containers";

export const EXPRESSIONS = [
  `${containers}.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged == false)`,
  "has(object.metadata.labels) && 'app' in object.metadata.labels",
  "object.spec.replicas <= params.maxReplicas",
  "object.metadata.?labels.?team.orValue('') != ''",
  `${containers}.all(c, c.image.contains('@sha256:'))`,
  `${containers}.all(c, !c.image.endsWith(':latest'))`,
  `${containers}.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)`,
  `${containers}.all(c, c.?resources.?requests.?cpu.hasValue())`,
  `${containers}.exists(c, c.name == 'istio-proxy')`,
  `${containers}.map(c, c.name).size() == ${containers}.size()`,
  "object.spec.template.spec.?hostNetwork.orValue(false) == false",
  "object.spec.template.spec.?hostPID.orValue(false) == false && object.spec.template.spec.?hostIPC.orValue(false) == false",
  `${containers}.all(c, c.?securityContext.?runAsNonRoot.orValue(false))`,
  `${containers}.all(c, c.?securityContext.?allowPrivilegeEscalation.orValue(true) == false)`,
  `${containers}.all(c, c.?securityContext.?capabilities.?add.orValue([]).all(cap, cap in ['NET_BIND_SERVICE']))`,
  `${containers}.all(c, c.?securityContext.?capabilities.?drop.orValue([]).exists(cap, cap == 'ALL'))`,
  "!has(object.spec.template.spec.volumes) || object.spec.template.spec.volumes.all(v, !has(v.hostPath))",
  `${containers}.all(c, !has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0))`,
  "object.metadata.name.size() <= 63",
  "object.metadata.name.startsWith(object.metadata.namespace + '-')",
  "request.operation == 'CREATE' || object.spec.replicas == oldObject.spec.replicas",
  "request.userInfo.username != 'system:anonymous'",
  "request.userInfo.groups.exists(g, g == 'system:masters') || object.metadata.namespace != 'kube-system'",
  "object.metadata.?annotations['owner'].hasValue()",
  "object.metadata.?annotations.orValue({}).all(k, k.size() < 64)",
  "namespaceObject.metadata.?labels.?environment.orValue('dev') in ['dev', 'staging', 'prod']",
  "!('environment' in object.metadata.?labels.orValue({})) || object.metadata.labels.environment in params.allowedEnvironments",
  "object.spec.replicas >= 2 || namespaceObject.metadata.?labels.?tier.orValue('') != 'production'",
  `${containers}.all(c, c.resources.limits.memory == c.resources.requests.memory)`,
  `${containers}.filter(c, c.image.startsWith('docker.io/')).size() == 0`,
  `${containers}.all(c, c.image.split('/')[0] in params.allowedRegistries)`,
  `${containers}.exists_one(c, c.name == 'app')`,
  `${containers}.all(c, c.name.matches('^[a-z0-9-]+$'))`,
  "object.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
  `size(${containers}) <= 10`,
  "object.spec.template.metadata.labels.all(k, object.spec.selector.matchLabels.exists(s, s == k) || true)",
  "object.spec.selector.matchLabels.all(k, k in object.spec.template.metadata.labels && object.spec.template.metadata.labels[k] == object.spec.selector.matchLabels[k])",
  "object.spec.strategy.type == 'RollingUpdate' ? object.spec.strategy.rollingUpdate.maxUnavailable != 0 : true",
  "has(object.spec.template.spec.serviceAccountName) && object.spec.template.spec.serviceAccountName != 'default'",
  "object.spec.template.spec.?automountServiceAccountToken.orValue(true) == false",
  "object.spec.template.spec.?securityContext.?seccompProfile.?type.orValue('') in ['RuntimeDefault', 'Localhost']",
  `${containers}.all(c, c.?livenessProbe.hasValue() && c.?readinessProbe.hasValue())`,
  `${containers}.all(c, c.?imagePullPolicy.orValue('IfNotPresent') == 'Always')`,
  "cel.bind(names, object.spec.template.spec.containers.map(c, c.name), names.size() == names.filter(n, names.exists_one(m, m == n)).size())",
  "variables.containerNames.all(n, n.size() > 0)",
  "variables.isProduction ? object.spec.replicas >= 3 : true",
  "[1, 2, 3].sum() == 6 && object.spec.template.spec.containers.map(c, c.name).isSorted() || true",
  "object.metadata.labels.all(k, v, k.size() + v.size() < 100)",
  `${containers}.exists(i, c, i == 0 && c.name != '')`,
  "'%s/%s'.format([object.metadata.namespace, object.metadata.name]).size() < 253",
  "object.metadata.name.lowerAscii() == object.metadata.name",
  "object.metadata.?creationTimestamp.hasValue() ? timestamp(object.metadata.creationTimestamp) < timestamp('2100-01-01T00:00:00Z') : true",
  "duration(object.spec.?progressDeadline.orValue('10m')) <= duration('1h')",
  "int(object.spec.?revisionHistoryLimit.orValue(10)) <= 10",
  "object.spec.replicas % 2 == 1",
  "object.kind == 'Deployment' && object.apiVersion == 'apps/v1'",
  "oldObject == null || object.metadata.uid == oldObject.metadata.uid",
  "params.?exemptNamespaces.orValue([]).exists(ns, ns == object.metadata.namespace)",
  `${containers}.all(c, c.?env.orValue([]).size() < 50)`,
  `${containers}.all(c, c.?env.orValue([]).all(e, !has(e.valueFrom) || !has(e.valueFrom.secretKeyRef)))`,
];

const container = (i: number): Value => ({
  name: `c${i}`,
  image: `registry.example.com/team/app${i}:1.${i}@sha256:abc`,
  imagePullPolicy: "Always",
  ports: [{ containerPort: 8080 + i }],
  resources: { limits: { memory: "128Mi", cpu: "500m" }, requests: { memory: "128Mi", cpu: "100m" } },
  securityContext: { privileged: false, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
  env: [{ name: "MODE", value: "prod" }],
});

export const DEPLOYMENT: Value = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "team-web", namespace: "team", labels: { app: "web", environment: "prod" }, uid: "1" },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: Array.from({ length: 6 }, (_, i) => container(i)) } },
  },
};

describe("performance", () => {
  const env = createEnv({
    variables: ["object", "oldObject", "request", "params", "namespaceObject", "variables"],
    libraries: KUBERNETES_LIBRARIES,
  });

  it("compiles 60 typical expressions", () => {
    expect(EXPRESSIONS).toHaveLength(60);
    const start = performance.now();
    const results = EXPRESSIONS.map((e) => compile(e, env));
    const ms = performance.now() - start;
    expect(results.filter((r) => !r.ok)).toEqual([]);
    console.log(`compiled ${EXPRESSIONS.length} expressions in ${ms.toFixed(1)} ms (cold module)`);
  });

  it("evaluates a container rule on a 6-container Deployment", () => {
    const c = compile(EXPRESSIONS[0] as string, env);
    if (!c.ok) throw new Error(c.error);
    const program: Program = c.program;
    const activation = { object: DEPLOYMENT };
    const budget = createBudget(Number.MAX_SAFE_INTEGER);
    expect(program.evaluate(activation, budget)).toEqual({ ok: true, value: true, cost: 78 });
    const n = 200_000;
    for (let i = 0; i < n; i++) program.evaluate(activation, budget);
    const start = performance.now();
    for (let i = 0; i < n; i++) program.evaluate(activation, budget);
    const us = ((performance.now() - start) * 1000) / n;
    console.log(`evaluated in ${us.toFixed(2)} µs per evaluation (warm)`);
  });
});
