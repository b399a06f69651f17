// The one exemption from `baseline` that sidecar-mode Istio without Istio CNI needs: the
// `istio-init` init container its injector adds, which sets up the Pod's iptables with NET_ADMIN
// and NET_RAW. Only a container shaped exactly as the injector makes it is exempt: an init
// container named istio-init, running an image the namespace reconciler was configured with
// (written on the namespace, where the policy reads it), with no command of its own (the image's
// pilot-agent runs) and `istio-iptables` as its first argument, adding nothing beyond the
// baseline capabilities and those two. Every other baseline check still applies to it.

/** The namespace annotation listing the Istio proxy images istio-init may run (comma-separated). */
export const ISTIO_PROXY_IMAGES_ANNOTATION = 'kfx.dev/istio-proxy-images';

const ISTIO_INIT_CAPABILITIES = ['NET_ADMIN', 'NET_RAW'] as const;

/**
 * An image pattern: a full reference, or a repository with `:*` (any tag) or `@*` (any digest).
 * A `*` anywhere else would let any image through (`docker.io/*`).
 */
export const PROXY_IMAGE_PATTERN =
  /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)+((:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?|[:@]\*)$/;

/** CEL: the images the namespace allows istio-init to run, from its annotation. */
export const PROXY_IMAGES_VARIABLE = `has(namespaceObject.metadata.annotations) && '${ISTIO_PROXY_IMAGES_ANNOTATION}' in namespaceObject.metadata.annotations ? namespaceObject.metadata.annotations['${ISTIO_PROXY_IMAGES_ANNOTATION}'].split(',') : []`;

/** CEL, on an init container `c`: it is Istio's istio-init, adding at most its two capabilities. */
export const ISTIO_INIT_EXEMPT = [
  "c.name == 'istio-init'",
  'has(c.image)',
  'variables.proxyImages.exists(p, p.endsWith("*") ? c.image.startsWith(p.substring(0, size(p) - 1)) : c.image == p)',
  '!has(c.command)',
  "has(c.args) && size(c.args) > 0 && c.args[0] == 'istio-iptables'",
  `c.securityContext.capabilities.add.all(cap, cap in ${JSON.stringify(ISTIO_INIT_CAPABILITIES).replaceAll('"', "'")} || cap in variables.baselineCapabilities)`,
].join(' && ');
