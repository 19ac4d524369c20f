/**
 * The choices of the editor: the scopes a claim can be released under and the groups a
 * field can be bound to. Each list is read only when the token may read it; without
 * `idp:apis:read` the standard OpenID Connect scopes are still offered.
 */
import { everyApiScope, everyItem } from "../../../api/pages";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";

/**
 * The standard scopes a claim can sensibly be released under (`offline_access` asks for a
 * refresh token and releases no claims, so it is not offered).
 */
export const STANDARD_SCOPES = ["profile", "email", "openid"] as const;

export interface Choice {
  value: string;
  label: string;
}

export interface EditorOptions {
  scopes: Choice[];
  groups: Choice[];
  /** Group names by id, for the read-only view. */
  groupNames: ReadonlyMap<string, string>;
}

interface ScopeRow {
  value: string;
  description: string;
}
interface GroupRow {
  id: string;
  name: string;
}

export async function loadEditorOptions(signal: AbortSignal): Promise<EditorOptions> {
  const standard: Choice[] = STANDARD_SCOPES.map((value) => ({ value, label: t("admin-ops.fields.scope.standard", { scope: value }) }));
  const apiScopes = hasScope("idp:apis:read") ? everyApiScope<ScopeRow>(signal) : Promise.resolve([]);
  const groups = hasScope("idp:groups:read") ? everyItem<GroupRow>("/admin/groups", signal) : Promise.resolve([]);
  const [scopeRows, groupRows] = await Promise.all([apiScopes, groups]);
  const scopes = scopeRows
    .map((scope) => ({ value: scope.value, label: `${scope.value} (${scope.description})` }))
    .sort((a, b) => a.value.localeCompare(b.value));
  return {
    scopes: [...standard, ...scopes],
    groups: groupRows.map((group) => ({ value: group.id, label: group.name })),
    groupNames: new Map(groupRows.map((group) => [group.id, group.name])),
  };
}
