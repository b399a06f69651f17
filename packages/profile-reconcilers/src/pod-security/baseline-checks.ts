// The Pod Security Standards' `baseline` level as CEL, for the ValidatingAdmissionPolicy that
// enforces it where Pod Security Admission cannot: sidecar-mode Istio without Istio CNI, whose
// `istio-init` container adds NET_ADMIN and NET_RAW. PSA has no per-container exemption, so the
// whole level is written out here, with one exemption (istio-init.ts). The checks follow
// k8s.io/pod-security-admission's baseline checks: host namespaces, privileged, capabilities,
// hostPath and gitRepo volumes, host ports, Windows hostProcess, /proc mount, seccomp, AppArmor,
// SELinux, sysctls, and probe or lifecycle hosts. Every container list is checked: containers,
// initContainers and ephemeralContainers (each its own CEL list: their types differ).
import { ISTIO_INIT_EXEMPT } from './istio-init.js';

/** Capabilities a baseline container may add: the container runtimes' defaults. */
export const BASELINE_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
] as const;

/** Namespaced sysctls the kubelet isolates per Pod. */
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
] as const;

const SELINUX_TYPES = [
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
];

const list = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;

type ContainerList = 'containers' | 'initContainers' | 'ephemeralContainers';
const ALL_LISTS: readonly ContainerList[] = ['containers', 'initContainers', 'ephemeralContainers'];

/** `c` satisfies `ok` in every listed container list of the Pod. */
function everyContainer(ok: (list: ContainerList) => string, lists = ALL_LISTS): string {
  return lists
    .map((name) =>
      name === 'containers'
        ? `object.spec.containers.all(c, ${ok(name)})`
        : `(!has(object.spec.${name}) || object.spec.${name}.all(c, ${ok(name)}))`,
    )
    .join(' && ');
}

/** The names of the containers that fail `ok`, joined, for a message. */
function offenders(ok: (list: ContainerList) => string, lists = ALL_LISTS): string {
  const names = lists.map((name) =>
    name === 'containers'
      ? `object.spec.containers.filter(c, !(${ok(name)})).map(c, c.name)`
      : `(has(object.spec.${name}) ? object.spec.${name}.filter(c, !(${ok(name)})).map(c, c.name) : [])`,
  );
  return `(${names.join(' + ')}).join(', ')`;
}

/** `base.path` where every step of it is set, else `fallback` (CEL's has() takes one step). */
function fieldOr(base: string, path: string, fallback: string): string {
  const steps = `securityContext.${path}`.split('.');
  const present = steps.map((_, i) => `has(${base}.${steps.slice(0, i + 1).join('.')})`);
  return `(${present.join(' && ')} ? ${base}.${steps.join('.')} : ${fallback})`;
}

/** A field of the container's securityContext, or the default when unset. */
const field = (path: string, fallback: string) => fieldOr('c', path, fallback);
const podField = (path: string, fallback: string) => fieldOr('object.spec', path, fallback);

const seLinuxOk = (options: string) =>
  `(!has(${options}.type) || ${options}.type in ${list(SELINUX_TYPES)}) && (!has(${options}.user) || ${options}.user == '') && (!has(${options}.role) || ${options}.role == '')`;

const probeHostOk = (probe: string) =>
  `(!has(c.${probe}) || ((!has(c.${probe}.httpGet) || !has(c.${probe}.httpGet.host) || c.${probe}.httpGet.host == '') && (!has(c.${probe}.tcpSocket) || !has(c.${probe}.tcpSocket.host) || c.${probe}.tcpSocket.host == '')))`;
const lifecycleHostOk = (hook: string) =>
  `(!has(c.lifecycle) || !has(c.lifecycle.${hook}) || ((!has(c.lifecycle.${hook}.httpGet) || !has(c.lifecycle.${hook}.httpGet.host) || c.lifecycle.${hook}.httpGet.host == '') && (!has(c.lifecycle.${hook}.tcpSocket) || !has(c.lifecycle.${hook}.tcpSocket.host) || c.lifecycle.${hook}.tcpSocket.host == '')))`;

const capabilitiesAdded = `(has(c.securityContext) && has(c.securityContext.capabilities) && has(c.securityContext.capabilities.add) ? c.securityContext.capabilities.add : [])`;

export interface BaselineCheck {
  /** Names the check in tests and docs. */
  name: string;
  expression: string;
  message: string;
  messageExpression?: string;
}

const named = (what: string, ok: (list: ContainerList) => string, lists = ALL_LISTS) =>
  `'${what}: ' + ${offenders(ok, lists)}`;

/** The checks, each a CEL expression that is true for an admissible Pod. */
export function baselineChecks(): BaselineCheck[] {
  const privileged = () => `!${field('privileged', 'false')}`;
  const capabilities = (name: ContainerList) => {
    const baseline = `${capabilitiesAdded}.all(cap, cap in ${list(BASELINE_CAPABILITIES)})`;
    return name === 'initContainers' ? `${baseline} || (${ISTIO_INIT_EXEMPT})` : baseline;
  };
  const hostPorts = () => `!has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0)`;
  const hostProcess = () => `!${field('windowsOptions.hostProcess', 'false')}`;
  const procMount = () =>
    `(has(object.spec.hostUsers) && !object.spec.hostUsers) || ${field('procMount', "'Default'")} == 'Default'`;
  const seccomp = () => `${field('seccompProfile.type', "''")} != 'Unconfined'`;
  const appArmor = () => `${field('appArmorProfile.type', "''")} != 'Unconfined'`;
  const seLinux = () =>
    `!has(c.securityContext) || !has(c.securityContext.seLinuxOptions) || (${seLinuxOk('c.securityContext.seLinuxOptions')})`;
  const probeHosts = () =>
    [
      probeHostOk('livenessProbe'),
      probeHostOk('readinessProbe'),
      probeHostOk('startupProbe'),
      lifecycleHostOk('postStart'),
      lifecycleHostOk('preStop'),
    ].join(' && ');
  const withPorts: readonly ContainerList[] = ['containers', 'initContainers'];
  return [
    {
      name: 'hostNamespaces',
      expression:
        '!(has(object.spec.hostNetwork) && object.spec.hostNetwork) && !(has(object.spec.hostPID) && object.spec.hostPID) && !(has(object.spec.hostIPC) && object.spec.hostIPC)',
      message: 'hostNetwork, hostPID and hostIPC must be unset or false',
    },
    {
      name: 'privileged',
      expression: everyContainer(privileged),
      message: 'privileged containers are not allowed',
      messageExpression: named('privileged containers are not allowed', privileged),
    },
    {
      name: 'capabilities',
      expression: everyContainer(capabilities),
      message: `containers may add only the baseline capabilities (${BASELINE_CAPABILITIES.join(', ')}); istio-init of the configured Istio proxy image also NET_ADMIN and NET_RAW`,
      messageExpression: named(
        `containers may add only the baseline capabilities (${BASELINE_CAPABILITIES.join(', ')}), and istio-init of the configured Istio proxy image NET_ADMIN and NET_RAW; not`,
        capabilities,
      ),
    },
    {
      name: 'hostPathVolumes',
      expression: '!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))',
      message: 'hostPath volumes are not allowed',
      messageExpression:
        "'hostPath volumes are not allowed: ' + object.spec.volumes.filter(v, has(v.hostPath)).map(v, v.name).join(', ')",
    },
    {
      name: 'gitRepoVolumes',
      expression: '!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.gitRepo))',
      message: 'gitRepo volumes are not allowed',
    },
    {
      name: 'hostPorts',
      expression: everyContainer(hostPorts, withPorts),
      message: 'host ports are not allowed',
      messageExpression: named('host ports are not allowed', hostPorts, withPorts),
    },
    {
      name: 'hostProcess',
      expression: `!${podField('windowsOptions.hostProcess', 'false')} && ${everyContainer(hostProcess)}`,
      message: 'Windows hostProcess containers are not allowed',
    },
    {
      name: 'procMount',
      expression: everyContainer(procMount),
      message: 'securityContext.procMount must be unset or Default',
      messageExpression: named('securityContext.procMount must be unset or Default', procMount),
    },
    {
      name: 'seccomp',
      expression: `${podField('seccompProfile.type', "''")} != 'Unconfined' && ${everyContainer(seccomp)}`,
      message: 'seccompProfile.type Unconfined is not allowed',
    },
    {
      name: 'appArmor',
      expression: `${podField('appArmorProfile.type', "''")} != 'Unconfined' && ${everyContainer(appArmor)} && (!has(object.metadata.annotations) || object.metadata.annotations.all(k, !k.startsWith('container.apparmor.security.beta.kubernetes.io/') || object.metadata.annotations[k] == '' || object.metadata.annotations[k] == 'runtime/default' || object.metadata.annotations[k].startsWith('localhost/')))`,
      message: 'AppArmor profile Unconfined is not allowed',
    },
    {
      name: 'seLinuxOptions',
      expression: `(!has(object.spec.securityContext) || !has(object.spec.securityContext.seLinuxOptions) || (${seLinuxOk('object.spec.securityContext.seLinuxOptions')})) && ${everyContainer(seLinux)}`,
      message: `seLinuxOptions may set only the type (${SELINUX_TYPES.filter(Boolean).join(', ')})`,
    },
    {
      name: 'sysctls',
      expression: `!has(object.spec.securityContext) || !has(object.spec.securityContext.sysctls) || object.spec.securityContext.sysctls.all(s, s.name in ${list(SAFE_SYSCTLS)})`,
      message: `only the safe sysctls are allowed (${SAFE_SYSCTLS.join(', ')})`,
    },
    {
      name: 'probeAndLifecycleHosts',
      expression: everyContainer(probeHosts, withPorts),
      message: 'probes and lifecycle handlers may not name a host',
    },
  ];
}
