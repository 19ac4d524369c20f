/**
 * Roles (`/admin/roles`): named sets of API scopes given to users and groups. The seeded
 * `administrator` role cannot be renamed or deleted: the API's 409 message is shown.
 */
import { type Page, del, get, patch, post } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, navigate } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, Notice, Pager, formatTime } from "../../ui/table";
import { type Role, carryNotice, seg, useCarriedNotice, useUrlCursor } from "./catalogue/common";
import { NamedForm } from "./catalogue/NamedForm";
import { ScopeChoice } from "./catalogue/ScopeChoice";

const WRITE = "idp:roles:write";
const LIST = "/console/admin/roles";

export function RolesScreen(_props: { params: Record<string, string> }) {
  const { cursor, next, first } = useUrlCursor();
  const { state, reload } = useLoad((signal) => get<Page<Role>>("/admin/roles", { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  return (
    <Screen title="Roles" intro="Named sets of scopes, given to users directly or through their groups.">
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption="Roles"
              rows={page.items}
              rowKey={(role) => role.id}
              empty="No roles yet."
              columns={[
                { header: "Name", rowHeader: true, cell: (role) => <Link to={`${LIST}/${seg(role.id)}`}>{role.name}</Link> },
                { header: "Description", cell: (role) => role.description || "—" },
                { header: "Scopes", cell: (role) => String(role.scopes.length) },
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={!cursor} onNext={next} onFirst={first} />
          </>
        )}
      </Loaded>
      {hasScope(WRITE) ? (
        <Panel title="New role">
          <NamedForm
            label="New role"
            submitLabel="Create role"
            onSubmit={async (values) => {
              const role = await post<Role>("/admin/roles", values);
              const to = `${LIST}/${seg(role.id)}`;
              carryNotice(to, "Role created. Choose its scopes below.");
              navigate(to);
              return null;
            }}
          />
        </Panel>
      ) : null}
    </Screen>
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
              <>
                <Panel title="Edit role" id="edit-role">
                  <NamedForm
                    label="Edit role"
                    submitLabel="Save role"
                    initial={role}
                    onSubmit={async (values) => {
                      await patch<Role>(`/admin/roles/${seg(role.id)}`, values);
                      reload();
                      return "Saved.";
                    }}
                  />
                </Panel>
                <Panel title="Delete role" id="delete-role">
                  <p>Users and groups that have the role lose it and its scopes.</p>
                  <ConfirmButton
                    label="Delete role"
                    title={`Delete the role ${role.name}?`}
                    confirmLabel="Delete"
                    onConfirm={async () => {
                      await del(`/admin/roles/${seg(role.id)}`);
                      carryNotice(LIST, `Role ${role.name} deleted.`);
                      navigate(LIST);
                    }}
                  >
                    <p>This cannot be undone.</p>
                  </ConfirmButton>
                </Panel>
              </>
            ) : null}
          </>
        )}
      </Loaded>
    </Screen>
  );
}
