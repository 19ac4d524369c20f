/**
 * The explanation of a person's permissions, as `GET /admin/users/{id}/effective-scopes`
 * and `GET /entity/permissions` both answer it: each scope with every reason it is held.
 */
export type ScopeSource =
  | { kind: "direct" }
  | { kind: "default" }
  | { kind: "role"; roleId: string; roleName: string }
  | { kind: "group"; groupId: string; groupName: string; roleId: string; roleName: string };

export interface EffectiveScope {
  scope: string;
  sources: ScopeSource[];
}

/** A key for one reason, unique among the reasons a scope is held. */
export function sourceKey(source: ScopeSource): string {
  switch (source.kind) {
    case "role":
      return `role:${source.roleId}`;
    case "group":
      return `group:${source.groupId}:${source.roleId}`;
    default:
      return source.kind;
  }
}
