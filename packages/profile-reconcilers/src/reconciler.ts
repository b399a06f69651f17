// What a reconciler is: a name, a zod schema for its part of the config file, and a pure
// function from a Profile to the objects that Profile should have. Everything that talks to the
// API lives in the controller, so a reconciler is tested with plain objects.
import type { KubeObject, ResourceRef } from '@kfx/kube-runtime/client';
import type { z } from 'zod';
import type { Ceilings } from './ceilings.js';
import type { NamespaceLabelPlan } from './controller/namespace-labels.js';
import type { Profile } from './profile.js';

/** Something about a Profile that a reconciler could not honour; the rest still applies. */
export interface Problem {
  /** The Profile label at fault, when a label is. */
  label?: string | undefined;
  value?: string | undefined;
  /** For people: what is wrong and what was expected. */
  message: string;
  /**
   * The reason of its Warning Event. Default `InvalidLabel` for a label, else `ReconcileWarning`;
   * `CeilingExceeded` when the Profile asked for more than a ceiling allows.
   */
  reason?: string | undefined;
}

/**
 * A cluster object that what a reconciler makes relies on but that no reconciler makes (the
 * ValidatingAdmissionPolicy the chart installs): the controller watches it, and a Profile that
 * relies on it while it is missing (or not in force) is told so.
 */
export interface RequiredObject {
  ref: ResourceRef;
  name: string;
  /** What goes unenforced without it, for people: `Pod Security baseline is not enforced`. */
  why: string;
  /** How to get it, for people. */
  fix: string;
  /** Why the object there does not do its job, or undefined when it does. */
  check?: ((object: KubeObject) => string | undefined) | undefined;
}

export interface Desired {
  objects: KubeObject[];
  problems: Problem[];
  /**
   * Set when some objects could not be computed (a template lacks a label): the objects this
   * reconciler made before are then kept rather than deleted as obsolete.
   */
  incomplete?: boolean | undefined;
  /** Names of the reconciler's `requires` this Profile's objects rely on. */
  requires?: string[] | undefined;
  /**
   * For the reconciler that makes the Profile's namespace: labels it sets only where the
   * namespace lacks them, labels it removes, and which of its own labels it enforces (told
   * when put back). Its keys must be among `namespaceLabelKeys`.
   */
  namespaceLabels?: NamespaceLabelPlan | undefined;
}

/** An object kind a reconciler creates; the controller watches it and needs RBAC for it. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/** Where a reconciler's configuration came from, for reading files next to it. */
export interface PrepareEnv {
  /** Relative paths in the configuration are relative to this folder. */
  baseDir: string;
  /** The configuration key of this reconciler, e.g. `reconcilers.templates`, for errors. */
  key: string;
}

/**
 * Objects a reconciler reads but never writes (contributors' RoleBindings, Secrets to copy). The
 * controller caches them and hands `desired` a read-only view, so `desired` stays a pure
 * function of the Profile, its config and that view; a change to a cached object reconciles the
 * Profiles that read it.
 */
export interface ReadRef {
  apiVersion: string;
  kind: string;
  /**
   * The one namespace to read (e.g. where the Secrets to copy live): a change there reconciles
   * every Profile. Absent: objects in the Profile's own namespace, whose changes reconcile that
   * Profile.
   */
  namespace?: string | undefined;
  /**
   * Which objects' changes concern the reconciler (default: all of them); a change to any other
   * cached object reconciles nothing. E.g. only the Secrets it copies, of a busy namespace.
   */
  concerns?: ((object: KubeObject) => boolean) | undefined;
  /**
   * What the cache keeps of each object (default: the object without managedFields). Objects a
   * tenant can write (RoleBindings in its namespace) must be cut to what `desired` reads, or one
   * tenant fills the controller's memory. Refs that share a cache must share this function.
   */
  transform?: ((object: KubeObject) => KubeObject) | undefined;
}

/**
 * A namespace the configuration depends on: a peer the network policies admit, the source of
 * copies, a fixed target of templates. No Profile may use it (a tenant who held it would hold
 * what it gives), and a `source` is read only while it is no Profile's namespace.
 */
export interface NamespaceUse {
  name: string;
  /** For people, after the reconciler's name: `the Secrets are copied from it`. */
  why: string;
  /** Objects are read from it and copied into Profile namespaces. */
  source?: boolean | undefined;
}

/** What `desired` may read: the cached objects of the kinds the reconciler declared. */
export interface ReadView {
  /** The cached objects of `ref` in `namespace`; throws when `ref` was not declared in `reads`. */
  list(ref: ReadRef, namespace: string): readonly KubeObject[];
}

/** A view that holds nothing, for reconcilers that read nothing (and for tests). */
export const EMPTY_VIEW: ReadView = { list: () => [] };

export interface DesiredContext<Prepared> {
  config: Prepared;
  /** Read-only view of the objects declared in `reads`. */
  read: ReadView;
  /** What a Profile may raise (the controller's `ceilings`); nothing by default. */
  ceilings: Ceilings;
}

export interface ProfileReconciler<Config, Prepared = Config> {
  /** The key under `reconcilers:` in the config file. */
  name: string;
  configSchema: z.ZodType<Config>;
  /** Turns the validated config into what `desired` needs (read files, compile); may throw. */
  prepare: (config: Config, env: PrepareEnv) => Prepared;
  kinds: (config: Prepared) => KindRef[];
  /** What it reads from the caches (never from the API); default nothing. */
  reads?: ((config: Prepared) => ReadRef[]) | undefined;
  /** The namespaces its configuration depends on; default none. */
  namespaces?: ((config: Prepared) => NamespaceUse[]) | undefined;
  /** Cluster objects its objects may rely on (a Profile's `desired` names those it does). */
  requires?: ((config: Prepared) => RequiredObject[]) | undefined;
  /** The labels of Profile namespaces its `namespaceLabels` decide by (the namespace cache keeps them). */
  namespaceLabelKeys?: ((config: Prepared) => string[]) | undefined;
  /**
   * Its objects are only ever created: one of the same name that kfx did not make for the
   * Profile is left alone (a conflict, told in the condition and an Event), even in the
   * Profile's own namespace. Default false: objects there are taken over, as a site moving from
   * another controller needs.
   */
  createOnly?: boolean | undefined;
  /**
   * For `createOnly` objects: whether an existing object of the name is already one of this
   * reconciler's (a copy the controller kfx replaces made, marked so by whoever administers the
   * namespace); it is then taken over. Objects the Profile owns are taken over anyway.
   */
  adopts?: ((existing: KubeObject, desired: KubeObject) => boolean) | undefined;
  desired: (profile: Profile, context: DesiredContext<Prepared>) => Desired;
}

/** A reconciler bound to its configuration: what the controller runs. */
export interface EnabledReconciler {
  name: string;
  kinds: KindRef[];
  /** Kinds it reads through the view given to `desired`. */
  reads?: ReadRef[] | undefined;
  /** The namespaces its configuration depends on. */
  namespaces?: NamespaceUse[] | undefined;
  /** Cluster objects its objects may rely on. */
  requires?: RequiredObject[] | undefined;
  /** The labels of Profile namespaces it decides by (see ProfileReconciler). */
  namespaceLabelKeys?: string[] | undefined;
  /** Its objects are only created, never taken over (see ProfileReconciler). */
  createOnly?: boolean | undefined;
  /** Which existing objects of a createOnly reconciler it takes over (see ProfileReconciler). */
  adopts?: ((existing: KubeObject, desired: KubeObject) => boolean) | undefined;
  desired: (profile: Profile, read?: ReadView) => Desired;
}

/** For reconcilers that need no preparation step. */
export function defineReconciler<Config>(
  reconciler: Omit<ProfileReconciler<Config>, 'prepare'>,
): ProfileReconciler<Config> {
  return { ...reconciler, prepare: (config) => config };
}
