// @kubernetes/client-node declares its models as classes and its timestamps as Date, but the wire
// carries plain objects and RFC 3339 strings. Plain<T> is a model's JSON shape: the type to give
// objects that come from, or go to, the apiserver as JSON (e.g. `Plain<V1Pod>`).

export type Plain<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T;
