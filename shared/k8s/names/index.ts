// Object names as the apiserver validates them (k8s.io/apimachinery
// pkg/util/validation/validation.go: IsDNS1123Label, IsDNS1123Subdomain;
// pkg/api/validation/generic.go: NameIsDNSSubdomain, NameIsDNSLabel, which
// ValidateNamespaceName is). What the function stores under a name taken
// from a push is held to these, so no stored name is one a cluster cannot have.

export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** DNS1123LabelMaxLength and DNS1123SubdomainMaxLength. */
export const MAX_LABEL_NAME = 63;
export const MAX_SUBDOMAIN_NAME = 253;

/** Whether `name` can name a Namespace (a DNS label). */
export const isNamespaceName = (name: string): boolean => name.length <= MAX_LABEL_NAME && DNS1123_LABEL.test(name);

/** Whether `name` can name an object whose names are DNS subdomains (most kinds, every custom resource). */
export const isSubdomainName = (name: string): boolean => name.length <= MAX_SUBDOMAIN_NAME && DNS1123_SUBDOMAIN.test(name);
