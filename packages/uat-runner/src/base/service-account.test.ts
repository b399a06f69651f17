// The run's default ServiceAccount is Kubeflow's editor, whose one owner is profile-reconcilers
// (uat-runner does not depend on it at run time: this test holds the copy to it).
import { KUBEFLOW_EDITOR_SERVICE_ACCOUNT } from '@kfx/profile-reconcilers';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_ACCOUNT } from './names.js';

describe('DEFAULT_SERVICE_ACCOUNT', () => {
  it("is Kubeflow's editor ServiceAccount, as the profile controller makes it", () => {
    expect(DEFAULT_SERVICE_ACCOUNT).toBe(KUBEFLOW_EDITOR_SERVICE_ACCOUNT);
  });
});
