/**
 * "My permissions": every scope the person holds and why (`GET /entity/permissions`, the
 * shape of the admin `effective-scopes`): given directly, through a role, through a role of
 * a group, or held by every person. Role and group names link to their administration
 * screens for those who may read them.
 */
import type { ReactNode } from "react";
import { get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link } from "../../router";
import { Screen } from "../../ui/Screen";
import { Loaded, useLoad } from "../../ui/load";
import { EffectiveScopesTable } from "../../ui/EffectiveScopes";
import type { EffectiveScope, ScopeSource } from "./api";

function named(kind: "roles" | "groups", id: string, name: string): ReactNode {
  return hasScope(`idp:${kind}:read`) ? <Link to={`/console/admin/${kind}/${encodeURIComponent(id)}`}>{name}</Link> : name;
}

function Source({ source }: { source: ScopeSource }) {
  switch (source.kind) {
    case "direct":
      return <>Given to you directly</>;
    case "default":
      return <>Every person has it</>;
    case "role":
      return <>Through your role {named("roles", source.roleId, source.roleName)}</>;
    case "group":
      return (
        <>
          Through the role {named("roles", source.roleId, source.roleName)} of your group{" "}
          {named("groups", source.groupId, source.groupName)}
        </>
      );
  }
}

export function PermissionsScreen(_props: { params: Record<string, string> }) {
  const { state, reload } = useLoad(
    (signal) => get<{ items: EffectiveScope[] }>("/entity/permissions", undefined, signal),
    [],
  );
  return (
    <Screen
      title="My permissions"
      intro="Every scope your account holds and where it comes from. An application receives only the scopes it asked for and was allowed."
    >
      <Loaded state={state} reload={reload} label="Loading your permissions…">
        {(answer) => (
          <EffectiveScopesTable
            caption="Your scopes"
            items={answer.items}
            empty="Your account holds no scope."
            whyHeader="Why you have it"
            listClass="plain"
            why={(source) => <Source source={source} />}
          />
        )}
      </Loaded>
    </Screen>
  );
}
