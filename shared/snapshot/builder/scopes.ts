// Which kinds have no namespace, keyed `group/Kind` ("" for the core group):
// what kubectl and the builder know without asking an API server.

/** Kubernetes' built-in cluster-scoped kinds (kubectl api-resources --namespaced=false), and this repo's own CRDs (infra/k8s/*-crd.yaml). */
export const BUILT_IN_CLUSTER_SCOPED: ReadonlySet<string> = new Set(
  Object.entries({
    "": ["Namespace", "Node", "PersistentVolume", "ComponentStatus"],
    "admissionregistration.k8s.io": [
      "ValidatingWebhookConfiguration",
      "MutatingWebhookConfiguration",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionPolicyBinding",
    ],
    "apiextensions.k8s.io": ["CustomResourceDefinition"],
    "apiregistration.k8s.io": ["APIService"],
    "authentication.k8s.io": ["TokenReview", "SelfSubjectReview"],
    "authorization.k8s.io": ["SubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview"],
    "certificates.k8s.io": ["CertificateSigningRequest", "ClusterTrustBundle"],
    "flowcontrol.apiserver.k8s.io": ["FlowSchema", "PriorityLevelConfiguration"],
    "internal.apiserver.k8s.io": ["StorageVersion"],
    "networking.k8s.io": ["IngressClass", "IPAddress", "ServiceCIDR"],
    "node.k8s.io": ["RuntimeClass"],
    "rbac.authorization.k8s.io": ["ClusterRole", "ClusterRoleBinding"],
    "resource.k8s.io": ["DeviceClass", "ResourceSlice"],
    "scheduling.k8s.io": ["PriorityClass"],
    "storage.k8s.io": ["StorageClass", "CSIDriver", "CSINode", "VolumeAttachment", "VolumeAttributesClass"],
    "storagemigration.k8s.io": ["StorageVersionMigration"],
    "cozystack.io": ["AffinityClass"],
    "edgeadmit.io": ["EdgeAdmissionPolicyBinding", "EdgeAdmissionException"],
  }).flatMap(([group, kinds]) => kinds.map((kind) => `${group}/${kind}`)),
);
