import { kfxTest } from '@kfx/vitest-config';

// The chart, rendered for and applied to the oldest supported Kubernetes too (its webhook
// registration refusing Pods while the webhook cannot answer).
export default kfxTest({ oldestMinor: ['src/chart.integration.test.ts'] });
