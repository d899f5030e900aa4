// The feature gates that change what an apiserver defaults or admits, per
// Kubernetes version, as pkg/features/versioned_kube_features.go and
// staging/src/k8s.io/apiserver/pkg/features/kube_features.go declare them:
// the first minor version whose apiserver has each gate on by default.
// Gates on by default in every supported version (1.30 to 1.37) are not
// gates here: their code always runs (JobPodReplacementPolicy, beta and on
// since 1.29; StatefulSetAutoDeletePVC, on since 1.27; CSIVolumeFSGroupPolicy
// and CSIInlineVolume, GA; SELinuxMountReadWriteOncePod, on since 1.28).
import { DEFAULT_VERSION, NEWEST_VERSION, OLDEST_VERSION, type KubernetesVersion } from "../cel/kubernetes/environment.js";

/** Gate → the minor version of 1.x that turns it on by default; null: off by default in every supported version. */
const ON_BY_DEFAULT_FROM = {
  /** versioned_kube_features.go: alpha 1.32 (off), beta 1.34 (on). Pod-level requests and limits defaulted from the containers'. */
  PodLevelResources: 34,
  /** versioned_kube_features.go: alpha 1.31, beta 1.33 (off), beta 1.35 (on). An image volume's pullPolicy defaulted from its tag. */
  ImageVolume: 35,
  /** kube_features.go (apiserver): alpha 1.32, beta 1.34 (off), GA 1.36 (on: CHANGELOG-1.36, #136039). Not applied offline (see index.ts): check says so where one would mutate. */
  MutatingAdmissionPolicy: 36,
} as const satisfies Record<string, number | null>;

export type Gate = keyof typeof ON_BY_DEFAULT_FROM;
export type Gates = Readonly<Record<Gate, boolean>>;

/** Versions outside the supported range take its nearest end, as the CEL environment does. */
const clamp = (version: KubernetesVersion): number => Math.min(Math.max(version.minor, OLDEST_VERSION.minor), NEWEST_VERSION.minor);

/** The gates an apiserver of `version` runs with by default. */
export function gatesFor(version: KubernetesVersion = DEFAULT_VERSION): Gates {
  const minor = clamp(version);
  const gates = {} as Record<Gate, boolean>;
  for (const [gate, from] of Object.entries(ON_BY_DEFAULT_FROM) as Array<[Gate, number | null]>) gates[gate] = from !== null && minor >= from;
  return gates;
}
