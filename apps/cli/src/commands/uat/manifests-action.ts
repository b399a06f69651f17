// What `kfx uat manifests` does once its flags are parsed, loaded only when it runs.
import type { Command } from 'commander';
import { pipelineStepYaml, type PipelineFormat } from '@kfx/uat-runner';
import { globalOptions } from '../../cli-options.js';

interface ManifestFlags {
  format: PipelineFormat;
  name: string;
  serviceAccount: string;
  kfxImage: string;
  image?: string;
  command?: string;
  filter?: string;
  profile: string;
  envSecret: string;
  timeout: string;
  artifacts?: string;
  s3Endpoint?: string;
  s3Secret: string;
  /** `--doctor` alone is `true`: the controller chart's default name. */
  doctor?: string | true;
}

const DOCTOR_SERVICE_ACCOUNT = 'kfx-controller-doctor';

export function printManifests(this: Command): void {
  const { format, doctor, ...flags } = this.opts<ManifestFlags>();
  const { namespace } = globalOptions(this);
  process.stdout.write(
    pipelineStepYaml(format, {
      ...flags,
      namespace,
      doctor: doctor === true ? DOCTOR_SERVICE_ACCOUNT : doctor,
    }),
  );
}
