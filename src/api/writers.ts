// Who wrote a change (docs/writers.md): template-sync itself, the cluster's
// own components, or anyone else. One table of components and two readings
// of it: by the request's user (the webhook: userInfo cannot be forged), and
// by the field manager a change was made under (the reconciler and
// `template-sync diff` read managedFields, where a client picks its own name).
//
// The rules that follow, for every sync mode that protects: a field the
// Template renders stays as rendered against everyone but template-sync;
// a field it does not render may be written by the components and by no
// one else; the ownership keys stay template-sync's; ignoreFields wins.

import { FIELD_MANAGER } from './names.ts'

export type WriterKind = 'template-sync' | 'component' | 'other'

/** The cluster's own components, as an admin may extend or narrow them (chart value `writers.components`). */
export interface ComponentTable {
  /** Exact usernames. */
  readonly users: readonly string[]
  /** Username prefixes, e.g. "system:node:" for every kubelet. */
  readonly userPrefixes: readonly string[]
  /** Groups whose members are components, e.g. "system:nodes". */
  readonly groups: readonly string[]
  /** Field managers the components write under, as managedFields names them. */
  readonly managers: readonly string[]
}

/** kube-controller-manager's controllers, each under its own service account (--use-service-account-credentials). */
export const CONTROLLER_SERVICE_ACCOUNTS: readonly string[] = Object.freeze([
  'attachdetach-controller',
  'bootstrap-signer',
  'certificate-controller',
  'clusterrole-aggregation-controller',
  'cronjob-controller',
  'daemon-set-controller',
  'deployment-controller',
  'device-taint-eviction-controller',
  'disruption-controller',
  'endpoint-controller',
  'endpointslice-controller',
  'endpointslicemirroring-controller',
  'ephemeral-volume-controller',
  'expand-controller',
  'generic-garbage-collector',
  'horizontal-pod-autoscaler',
  'job-controller',
  'legacy-service-account-token-cleaner',
  'namespace-controller',
  'node-controller',
  'persistent-volume-binder',
  'pod-garbage-collector',
  'pv-protection-controller',
  'pvc-protection-controller',
  'replicaset-controller',
  'replication-controller',
  'resource-claim-controller',
  'resourcequota-controller',
  'root-ca-cert-publisher',
  'route-controller',
  'selinux-warning-controller',
  'service-account-controller',
  'service-cidrs-controller',
  'service-controller',
  'statefulset-controller',
  'token-cleaner',
  'ttl-after-finished-controller',
  'ttl-controller',
  'validatingadmissionpolicy-status-controller',
  'volumeattributesclass-protection-controller',
])

export const DEFAULT_COMPONENTS: ComponentTable = Object.freeze({
  users: Object.freeze([
    'system:kube-controller-manager',
    'system:kube-scheduler',
    ...CONTROLLER_SERVICE_ACCOUNTS.map((sa) => `system:serviceaccount:kube-system:${sa}`),
  ]),
  userPrefixes: Object.freeze(['system:node:']),
  groups: Object.freeze(['system:nodes']),
  managers: Object.freeze(['kube-controller-manager', 'kube-scheduler', 'kubelet']),
})

export interface RequestUser {
  readonly username?: string
  readonly groups?: readonly string[]
}

/** Who made a request, by its userInfo. `operators` are template-sync's own usernames. */
export function writerOfUser(user: RequestUser, operators: readonly string[], table: ComponentTable): WriterKind {
  const name = user.username ?? ''
  if (name !== '' && operators.includes(name)) return 'template-sync'
  if (name !== '' && (table.users.includes(name) || table.userPrefixes.some((p) => p !== '' && name.startsWith(p)))) return 'component'
  if ((user.groups ?? []).some((g) => table.groups.includes(g))) return 'component'
  return 'other'
}

/**
 * Who a managedFields entry belongs to, by its manager name. Our own
 * managers are template-sync and its label-only patch (template-sync-label).
 * A client chooses its manager name: this reading is forgeable (docs/writers.md).
 */
export function writerOfManager(manager: string | undefined, table: ComponentTable): WriterKind {
  if (manager === FIELD_MANAGER || manager === `${FIELD_MANAGER}-label`) return 'template-sync'
  if (manager !== undefined && table.managers.includes(manager)) return 'component'
  return 'other'
}

/** A table from comma-separated lists (process flags); an absent list keeps the default. */
export function componentTable(lists: Partial<Record<keyof ComponentTable, string | undefined>>): ComponentTable {
  const split = (v: string | undefined, d: readonly string[]): readonly string[] =>
    v === undefined
      ? d
      : Object.freeze(
          v
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        )
  return Object.freeze({
    users: split(lists.users, DEFAULT_COMPONENTS.users),
    userPrefixes: split(lists.userPrefixes, DEFAULT_COMPONENTS.userPrefixes),
    groups: split(lists.groups, DEFAULT_COMPONENTS.groups),
    managers: split(lists.managers, DEFAULT_COMPONENTS.managers),
  })
}

/** The process flags (and environment variables) that set the table, shared by the webhook and the reconciler. */
export const COMPONENT_FLAGS = Object.freeze({
  'component-users': {
    env: 'TEMPLATE_SYNC_COMPONENT_USERS',
    help: 'comma-separated usernames of the cluster`s components (default: built in, docs/writers.md)',
  },
  'component-user-prefixes': {
    env: 'TEMPLATE_SYNC_COMPONENT_USER_PREFIXES',
    help: 'comma-separated username prefixes of components (default system:node:)',
  },
  'component-groups': { env: 'TEMPLATE_SYNC_COMPONENT_GROUPS', help: 'comma-separated groups of components (default system:nodes)' },
  'component-managers': {
    env: 'TEMPLATE_SYNC_COMPONENT_MANAGERS',
    help: 'comma-separated field managers of components (default kube-controller-manager,kube-scheduler,kubelet)',
  },
} as const)

/** The table from the values of COMPONENT_FLAGS (flag, else environment, else the default). */
export function componentTableFrom(get: (flag: keyof typeof COMPONENT_FLAGS) => string | undefined): ComponentTable {
  return componentTable({
    users: get('component-users'),
    userPrefixes: get('component-user-prefixes'),
    groups: get('component-groups'),
    managers: get('component-managers'),
  })
}
