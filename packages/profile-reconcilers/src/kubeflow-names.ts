// Names Kubeflow's own components agree on, written here once: the ServiceAccounts the upstream
// profile controller makes in every profile namespace, and the ClusterRoles it binds them to.
// Notebooks, Pipelines and test Jobs run as the editor; the UAT runner defaults to it, and the
// controller chart's ClusterRole names these roles (both checked against this by tests).

/** The ServiceAccount workloads of a profile namespace run as. */
export const KUBEFLOW_EDITOR_SERVICE_ACCOUNT = 'default-editor';

/** The upstream controller's ServiceAccounts and the ClusterRoles their RoleBindings name. */
export const KUBEFLOW_SERVICE_ACCOUNTS: readonly { name: string; clusterRole: string }[] = [
  { name: KUBEFLOW_EDITOR_SERVICE_ACCOUNT, clusterRole: 'kubeflow-edit' },
  { name: 'default-viewer', clusterRole: 'kubeflow-view' },
];
