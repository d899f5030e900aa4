// What `npm start` prints once the demo is served: every cluster the local
// function serves (CLUSTERS' and the registry's), the demo's files, the
// operator key that signs registry and fleet changes, how to start over,
// and commands to try, the operator's as a registry context
// (EDGEADMIT_ENDPOINT, EDGEADMIT_OPERATOR_KEY: docs/operations.md, "The CLI").
import { RESET_LOCAL_STATE } from "./local-state.js";

/** Registry clusters named in the banner; the rest are counted (clusters list shows them). */
const MAX_NAMED = 20;

export interface BannerFacts {
  url: string;
  /** The ids CLUSTERS registers (the demo's, and EDGEADMIT_CLUSTERS'). */
  clustersVariable: readonly string[];
  /** The ids the registry holds, or why it could not be read. */
  registry: readonly string[] | { unread: string };
  snapshot: { generation: number; bytes: number };
  /** Paths as the project's root sees them. */
  files: { demoKey: string; demoToken: string; operatorKey: string; state: string };
}

function registryText(registry: BannerFacts["registry"]): string {
  if ("unread" in registry) return `the registry not read (${registry.unread})`;
  if (registry.length === 0) return "none in the registry yet";
  const named = registry.slice(0, MAX_NAMED).join(", ");
  return `${named}${registry.length > MAX_NAMED ? ` and ${(registry.length - MAX_NAMED).toLocaleString("en-US")} more` : ""} (the registry)`;
}

export function bannerOf({ url, clustersVariable, registry, snapshot, files }: BannerFacts): string {
  return `edgeadmit is serving on ${url}
  clusters: ${clustersVariable.join(", ")} (CLUSTERS); ${registryText(registry)}
  demo snapshot: generation ${snapshot.generation}, ${snapshot.bytes} bytes (examples/demo/cluster.yaml, signed with ${files.demoKey})
  demo apiserver token: in ${files.demoToken}
  operator key: ${files.operatorKey} (this function trusts it: it signs clusters and fleet changes)
  state: ${files.state} (the registry, the fleet, snapshots), kept across restarts; to start over: ${RESET_LOCAL_STATE} (docs/operations.md, "Reset the local function")

Try:
  TOKEN=$(cat ${files.demoToken})
  curl -s ${url}/v1/demo/validate -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d @examples/reviews/pod-main-db-denied.json
  curl -s ${url}/v1/demo/validate -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d @examples/reviews/pod-main-db-allowed.json
  curl -s ${url}/v1/demo/snapshot -H "authorization: Bearer $TOKEN"
  export EDGEADMIT_ENDPOINT=${url} EDGEADMIT_OPERATOR_KEY=${files.operatorKey}
  npx edgeadmit clusters list      # the registry (clusters add|get|rotate|label|remove), fleet …, operator …

One line per review follows. Ctrl-C stops.`;
}
