export { clusterNoProxyDefaults, mergeNoProxy, type ClusterNetwork } from './no-proxy.js';
