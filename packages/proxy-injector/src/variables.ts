// The variables the injector sets, grouped so that a container owning one of a family keeps all
// of them (settings.ts plans them; ca-bundle.ts adds its own family).
interface Variable {
  name: string;
  value: string;
}

/** Variables that count as one setting: a container that sets any of them keeps all of them. */
export interface VariableFamily {
  /** Lower-case names: a container setting `HTTP_PROXY` or `http_proxy` owns the family. */
  owners: readonly string[];
  variables: readonly Variable[];
}
