/** The namespace of the sync job, its signing key and the settings ConfigMap (infra/k8s). */
export const JOB_NAMESPACE = "edgeadmit-system";
