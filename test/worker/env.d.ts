declare module "*?raw" {
  const text: string;
  export default text;
}

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../../functions/index.js");
    durableNamespaces: "SnapshotStore";
  }
  interface Env {
    TEST_KEYS: string;
  }
}
