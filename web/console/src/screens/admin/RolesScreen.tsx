/**
 * Roles (`/admin/roles`): named sets of API scopes given to users and groups. The seeded
 * `administrator` role cannot be renamed or deleted: the API's 409 message is shown.
 */
import { hasScope } from "../../auth/session";
import { intl, t } from "../../i18n";
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
      intro={t("admin-directory.roles.intro")}
      columns={[
        { header: t("admin-directory.roles.description"), cell: (role) => role.description || "—" },
        { header: t("admin-directory.roles.scopes"), cell: (role) => intl().formatNumber(role.scopes.length) },
      ]}
      createdNotice={t("admin-directory.roles.createdNotice")}
    />
  );
}

export function RoleScreen({ params }: { params: Record<string, string> }) {
  return (
    <NamedScreen<Role>
      kind={ROLES}
      id={params.id ?? ""}
      facts={(role) => [
        [t("admin-directory.roles.description"), role.description || "—"],
        [t("admin-directory.roles.createdAt"), formatTime(role.createdAt)],
        [t("admin-directory.roles.changed"), formatTime(role.updatedAt)],
      ]}
      deleteWarning={t("admin-directory.roles.deleteWarning")}
    >
      {(role) => (
        <Panel title={t("admin-directory.roles.scopes")} id="role-scopes">
          <ScopeChoice
            path={`/admin/roles/${seg(role.id)}/scopes`}
            chosen={role.scopes}
            withOidc={false}
            canWrite={hasScope(ROLES.writeScope)}
            legend={t("admin-directory.roles.scopesLegend")}
          />
        </Panel>
      )}
    </NamedScreen>
  );
}
