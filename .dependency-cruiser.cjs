// The architecture, as rules: which folder may import which. `npm test` runs
// them on the whole tree (`npm run deps`, dependency-cruiser) and
// test/node/boundaries.test.ts proves each kind of rule fails on a planted
// upward import. Dependencies point one way, down these lists; a folder's own
// files may import each other, never in a circle.
//
// Runtimes, from the top:
//   bench/, test/, scripts/, bin/   tooling (Node): may import anything below
//   infra/                          the Node side: CLI, sync job, audit (Node, @kubernetes/client-node)
//   functions/                      the Worker (workerd): Hono app, Durable Objects
//   policies/                       the built-in policies: pure (request, snapshot) → findings
//   shared/                         code every runtime runs: no Node, no Workers API
// policies/ and shared/ run in the worker, the CLI and the audit alike, so
// they import nothing above them; functions/ never imports the Node side.

/** shared/, bottom first: a folder imports only folders before it. */
const SHARED_LAYERS = [
  "digest", "json", "text", "re2", "zod", "version", // leaves: hashing, JSON, capped text, RE2, zod's setup, releases and their skew
  "signing", "tokens", // keys, tokens
  "admission", "k8s", "exceptions", // the AdmissionReview codec, Kubernetes helpers, exceptions
  "clusters", // cluster registrations (their labels are Kubernetes labels)
  "cel", // the CEL language and Kubernetes' libraries
  "inventory", // the cluster inventory: its declaration, storage units, the facts it reads, its CEL library
  "snapshot", // the snapshot: schema, builder/, its storage units (units/), the view that answers the facts
  "vap", // ValidatingAdmissionPolicies: compile, match, validate, dispatch
  "policy", // what a built-in policy is
  "fleet", // fleet policy sets: one set for many clusters, selected by their labels
  "governance", // operator keys, thresholds of their signatures, the change log and the undo of a revoked key's changes
  "review", // review(): match → evaluate → decide
  "counts", // verdict counts of reviews, per cluster, policy and outcome
  "apiserver", // what the apiserver does to an object before validation: API defaults, built-in mutating admission (check and test only)
  "judge", // judging objects offline (check, audit)
];

/** infra/, bottom first. */
const INFRA_LAYERS = [
  "base", // errors, I/O, the project's folder, the job's namespace
  "client", // the function's HTTP client (push, registry)
  "webhook", // the ValidatingWebhookConfiguration the CLI prints and the job reads
  "objects", // objects from YAML and from the cluster (@kubernetes/client-node)
  "bundle", // the CLI bundled for the CronJobs
  "measure", // snapshot sizes, for the docs
  "k8s", // the manifests (kustomize) and their tests
  "audit", // edgeadmit audit: PolicyReports from the cluster
  "dashboard", // edgeadmit dashboard: the fleet's pages on 127.0.0.1, read with the operator's key
  "cli", // the edgeadmit verbs, one file each (docs/contributing.md); check's jobs in cli/check/
];

const TEST = "\\.test\\.ts$";
const alternatives = (names) => names.map((name) => name.replace(/[.]/g, "\\.")).join("|");

/** For each layer, a rule forbidding imports of any layer above it. */
function layerRules(top, layers) {
  const rules = layers.slice(0, -1).map((name, i) => ({
    name: `${top}-${name}-imports-upward`,
    comment: `${top}/${name} sits below ${layers.slice(i + 1).join(", ")} (.dependency-cruiser.cjs, ${top.toUpperCase()}_LAYERS)`,
    severity: "error",
    from: { path: `^${top}/${name}/`, pathNot: TEST },
    to: { path: `^${top}/(${alternatives(layers.slice(i + 1))})/` },
  }));
  rules.push({
    name: `${top}-folder-without-layer`,
    comment: `every folder of ${top}/ has its place in ${top.toUpperCase()}_LAYERS: add a new one where it belongs`,
    severity: "error",
    from: { path: `^${top}/(?!(${alternatives(layers)})/)[^/]+/` },
    to: {},
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "no import circles between files (type-only imports count: they order the layers too)",
      severity: "error",
      from: { pathNot: TEST },
      to: { circular: true },
    },
    {
      name: "no-folder-circular",
      comment: "no circles between folders",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-imports-above-it",
      comment: "shared/ and policies/ run everywhere: they cannot import the worker (functions/), the Node side (infra/), scripts/, bench/ or test/",
      severity: "error",
      from: { path: "^(shared|policies)/", pathNot: TEST },
      to: { path: "^(functions|infra|scripts|bench|test|bin)/" },
    },
    {
      name: "worker-imports-node-side",
      comment: "the worker never imports the Node side (infra/), scripts/, bench/ or test/",
      severity: "error",
      from: { path: "^functions/" },
      to: { path: "^(infra|scripts|bench|test|bin)/" },
    },
    {
      name: "worker-reaches-apiserver",
      comment: "the function never defaults an object (the apiserver sends it the object it admitted): shared/apiserver serves check, test and the conformance suite, and the worker's bundle never carries it",
      severity: "error",
      from: { path: "^functions/" },
      to: { path: "^shared/apiserver/", reachable: true },
    },
    {
      name: "no-node-in-worker-or-core",
      comment:
        "the worker, the policies and the shared core use Web-standard APIs only: no Node built-in module, no @kubernetes/client-node (the globals process and Buffer are refused by tsconfig.core.json and tsconfig.worker.json, which declare none)",
      severity: "error",
      from: { path: "^(shared|policies|functions)/", pathNot: TEST },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "client-node-outside-infra",
      comment: "@kubernetes/client-node only in infra/",
      severity: "error",
      from: { pathNot: "^infra/" },
      to: { path: "node_modules/@kubernetes/client-node/" },
    },
    {
      name: "no-workers-api-in-core",
      comment: "shared/ and policies/ also run in Node: no cloudflare: modules",
      severity: "error",
      from: { path: "^(shared|policies)/", pathNot: TEST },
      to: { path: "^cloudflare:" },
    },
    {
      name: "product-imports-test-code",
      comment: "test doubles and fixtures live under test/ (or in a *.test.ts); no product folder imports them, nor vitest",
      severity: "error",
      from: { path: "^(shared|policies|functions|infra)/", pathNot: TEST },
      to: { path: "^test/|node_modules/(vitest|@vitest)/" },
    },
    ...layerRules("shared", SHARED_LAYERS),
    ...layerRules("infra", INFRA_LAYERS),
  ],
  options: {
    // Type-only imports count: a type imported upward ties the layers as surely as a value.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    // Test files may import across layers (a unit test builds a snapshot to test the VAP): the rules are for what ships and runs.
    exclude: { path: "^\\.edgeadmit/|\\.test\\.ts$" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".d.ts"] },
  },
};
