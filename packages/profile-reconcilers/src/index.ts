export {
  isQuantity,
  quotaOverridesFromLabels,
  RESOURCE_ALIASES,
  type LabelProblem,
  type QuotaOverrides,
} from './quota-labels.js';
