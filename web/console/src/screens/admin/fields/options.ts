/**
 * The choices of the editor: the scopes a claim can be released under and the groups a
 * field can be bound to. Each list is read only when the token may read it; without
 * `idp:apis:read` the standard OpenID Connect scopes are still offered.
 */
import { type Page, get } from "../../../api/client";
import { hasScope } from "../../../auth/session";

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

/** Every page of a list (at most 20 pages of 200: more would not fit a select anyway). */
async function everything<T>(path: string, signal: AbortSignal): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page += 1) {
    const answer: Page<T> = await get<Page<T>>(path, { limit: 200, cursor }, signal);
    rows.push(...answer.items);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  return rows;
}

interface ApiRow {
  id: string;
  name: string;
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
  const standard: Choice[] = STANDARD_SCOPES.map((value) => ({ value, label: `${value} (OpenID Connect)` }));
  const apiScopes = hasScope("idp:apis:read")
    ? everything<ApiRow>("/admin/apis", signal).then((apis) =>
        Promise.all(
          apis.map((api) => everything<ScopeRow>(`/admin/apis/${encodeURIComponent(api.id)}/scopes`, signal)),
        ),
      )
    : Promise.resolve([] as ScopeRow[][]);
  const groups = hasScope("idp:groups:read") ? everything<GroupRow>("/admin/groups", signal) : Promise.resolve([]);
  const [scopeLists, groupRows] = await Promise.all([apiScopes, groups]);
  const scopes = scopeLists
    .flat()
    .map((scope) => ({ value: scope.value, label: `${scope.value} (${scope.description})` }))
    .sort((a, b) => a.value.localeCompare(b.value));
  return {
    scopes: [...standard, ...scopes],
    groups: groupRows.map((group) => ({ value: group.id, label: group.name })),
    groupNames: new Map(groupRows.map((group) => [group.id, group.name])),
  };
}
