/**
 * Roles (`/admin/roles`): named sets of API scopes given to users and groups. The seeded
 * `administrator` role cannot be renamed or deleted: the API's 409 message is shown.
 */
import { get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import { type Role, seg, useCarriedNotice } from "./catalogue/common";
import { type NamedKind, NamedListScreen, NamedSettings } from "./catalogue/Named";
import { ScopeChoice } from "./catalogue/ScopeChoice";

const WRITE = "idp:roles:write";
const LIST = "/console/admin/roles";
const ROLES: NamedKind = { noun: "role", plural: "Roles", apiPath: "/admin/roles", listPath: LIST, writeScope: WRITE };

export function RolesScreen(_props: { params: Record<string, string> }) {
  return (
    <NamedListScreen<Role>
      kind={ROLES}
      intro="Named sets of scopes, given to users directly or through their groups."
      columns={[
        { header: "Description", cell: (role) => role.description || "—" },
        { header: "Scopes", cell: (role) => String(role.scopes.length) },
      ]}
      createdNotice="Role created. Choose its scopes below."
    />
  );
}

export function RoleScreen({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  const { state, reload } = useLoad((signal) => get<Role>(`/admin/roles/${seg(id)}`, undefined, signal), [id]);
  const created = useCarriedNotice();
  const canWrite = hasScope(WRITE);
  return (
    <Screen title={state.status === "ready" ? `Role ${state.data.name}` : "Role"} actions={<Link to={LIST}>All roles</Link>}>
      {created ? <Notice>{created}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(role) => (
          <>
            <dl className="facts">
              <dt>Description</dt>
              <dd>{role.description || "—"}</dd>
              <dt>Created</dt>
              <dd>{formatTime(role.createdAt)}</dd>
              <dt>Changed</dt>
              <dd>{formatTime(role.updatedAt)}</dd>
            </dl>
            <Panel title="Scopes" id="role-scopes">
              <ScopeChoice
                path={`/admin/roles/${seg(role.id)}/scopes`}
                chosen={role.scopes}
                withOidc={false}
                canWrite={canWrite}
                legend="Scopes the role holds"
              />
            </Panel>
            {canWrite ? (
              <NamedSettings
                kind={ROLES}
                record={role}
                onSaved={reload}
                deleteWarning="Users and groups that have the role lose it and its scopes."
              />
            ) : null}
          </>
        )}
      </Loaded>
    </Screen>
  );
}
