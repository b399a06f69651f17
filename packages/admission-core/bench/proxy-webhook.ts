// The handler the benchmarks serve: the work a proxy injector does (both spellings of the proxy
// variables appended to every container that does not set them), about 18 patch operations.
import type { V1Pod } from '@kubernetes/client-node';
import { defineMutatingWebhook, type Plain } from '@kfx/admission-core';
import { proxyMutation } from '@kfx/testenv/bench';

export const proxyWebhook = defineMutatingWebhook<Plain<V1Pod>>(proxyMutation('/mutate/proxy'));
