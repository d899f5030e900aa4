declare module "*?raw" {
  const text: string;
  export default text;
}

type FunctionEnv = import("../../functions/config/index.js").Env;

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../../functions/index.js");
    durableNamespaces: "SnapshotStore" | "ClusterRegistry";
  }
  interface Env extends FunctionEnv {
    TEST_KEYS: string;
    TEST_TOKENS: string;
    TEST_OPERATOR_KEYS: string;
  }
}
