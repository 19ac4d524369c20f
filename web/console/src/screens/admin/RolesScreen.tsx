/**
 * Roles (`/admin/roles`): named sets of API scopes given to users and groups. The seeded
 * `administrator` role cannot be renamed or deleted: the API's 409 message is shown.
 */
import { hasScope } from "../../auth/session";
import { Panel } from "../../ui/Screen";
import { formatTime } from "../../ui/table";
import { type Role, seg } from "./catalogue/common";
import { NamedListScreen, NamedScreen, namedKind } from "./catalogue/Named";
import { ScopeChoice } from "./catalogue/ScopeChoice";

const ROLES = namedKind("role");

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
  return (
    <NamedScreen<Role>
      kind={ROLES}
      id={params.id ?? ""}
      facts={(role) => [
        ["Description", role.description || "—"],
        ["Created", formatTime(role.createdAt)],
        ["Changed", formatTime(role.updatedAt)],
      ]}
      deleteWarning="Users and groups that have the role lose it and its scopes."
    >
      {(role) => (
        <Panel title="Scopes" id="role-scopes">
          <ScopeChoice
            path={`/admin/roles/${seg(role.id)}/scopes`}
            chosen={role.scopes}
            withOidc={false}
            canWrite={hasScope(ROLES.writeScope)}
            legend="Scopes the role holds"
          />
        </Panel>
      )}
    </NamedScreen>
  );
}
