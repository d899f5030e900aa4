// The Kubernetes CEL libraries a ValidatingAdmissionPolicy can use, beyond
// the base environment (k8s.io/apiserver/pkg/cel/environment/base.go).
import type { Library } from "../library/index.js";
import { listsLibrary } from "./lists/index.js";

export const KUBERNETES_LIBRARIES: readonly Library[] = [listsLibrary];
