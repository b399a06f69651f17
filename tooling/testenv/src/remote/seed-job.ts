// The Job interLink's guide checks a virtual node with ("helloworld": `kubectl auth can-i
// --list` on the remote node): its node selector, toleration, restart policy and resources, as
// the guide has them, around a script of the test's own.
import type { V1EnvVar, V1Job } from '@kubernetes/client-node';
import { NO_SCHEDULE_TAINT } from './node-object.js';

export interface SeedJobOptions {
  name: string;
  namespace: string;
  /** The remote node's name (its `kubernetes.io/hostname`). */
  node: string;
  /** An image loaded into the remote node (`imagePullPolicy: Never`). */
  image: string;
  /** Run with `sh -c`. */
  script: string;
  env?: V1EnvVar[];
}

export function seedJob(options: SeedJobOptions): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { 'kubernetes.io/hostname': options.node },
          tolerations: [{ key: NO_SCHEDULE_TAINT, operator: 'Exists' }],
          containers: [
            {
              name: 'helloworld',
              image: options.image,
              imagePullPolicy: 'Never',
              command: ['sh', '-c', options.script],
              ...(options.env ? { env: options.env } : {}),
              resources: {
                requests: { cpu: '50m', memory: '100Mi' },
                limits: { cpu: '1500m', memory: '2000Mi' },
              },
            },
          ],
        },
      },
    },
  };
}
