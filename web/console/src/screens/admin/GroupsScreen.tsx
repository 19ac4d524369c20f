/**
 * Groups (`/admin/groups`): people who share roles. The detail holds the members (added by
 * searching users by email), the group's roles and the settings.
 */
import { useState } from "react";
import { type Page, del, get, patch, post, put } from "../../api/client";
import { hasScope } from "../../auth/session";
import { Link, navigate } from "../../router";
import { Panel, Screen } from "../../ui/Screen";
import { ConfirmButton } from "../../ui/dialog";
import { CheckboxGroup, Form, SubmitButton, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, Notice, Pager, formatTime } from "../../ui/table";
import {
  type Group,
  type Role,
  carryNotice,
  fetchAll,
  listErrors,
  seg,
  useCarriedNotice,
  useUrlCursor,
} from "./catalogue/common";
import { GroupMembers } from "./catalogue/GroupMembers";
import { NamedForm } from "./catalogue/NamedForm";

const WRITE = "idp:groups:write";
const LIST = "/console/admin/groups";

export function GroupsScreen(_props: { params: Record<string, string> }) {
  const { cursor, next, first } = useUrlCursor();
  const { state, reload } = useLoad((signal) => get<Page<Group>>("/admin/groups", { cursor }, signal), [cursor]);
  const notice = useCarriedNotice();
  return (
    <Screen title="Groups" intro="People who share roles: every member holds the scopes of the group's roles.">
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(page) => (
          <>
            <DataTable
              caption="Groups"
              rows={page.items}
              rowKey={(group) => group.id}
              empty="No groups yet."
              columns={[
                { header: "Name", rowHeader: true, cell: (group) => <Link to={`${LIST}/${seg(group.id)}`}>{group.name}</Link> },
                { header: "Members", cell: (group) => String(group.memberCount) },
                { header: "Roles", cell: (group) => group.roles.map((role) => role.name).join(", ") || "—" },
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={!cursor} onNext={next} onFirst={first} />
          </>
        )}
      </Loaded>
      {hasScope(WRITE) ? (
        <Panel title="New group">
          <NamedForm
            label="New group"
            submitLabel="Create group"
            onSubmit={async (values) => {
              const group = await post<Group>("/admin/groups", values);
              const to = `${LIST}/${seg(group.id)}`;
              carryNotice(to, "Group created. Add its members and roles below.");
              navigate(to);
              return null;
            }}
          />
        </Panel>
      ) : null}
    </Screen>
  );
}

export function GroupScreen({ params }: { params: Record<string, string> }) {
  const id = params.id ?? "";
  const { state, reload } = useLoad((signal) => get<Group>(`/admin/groups/${seg(id)}`, undefined, signal), [id]);
  const created = useCarriedNotice();
  const canWrite = hasScope(WRITE);
  return (
    <Screen title={state.status === "ready" ? `Group ${state.data.name}` : "Group"} actions={<Link to={LIST}>All groups</Link>}>
      {created ? <Notice>{created}</Notice> : null}
      <Loaded state={state} reload={reload}>
        {(group) => (
          <>
            <dl className="facts">
              <dt>Description</dt>
              <dd>{group.description || "—"}</dd>
              <dt>Members</dt>
              <dd>{group.memberCount}</dd>
              <dt>Created</dt>
              <dd>{formatTime(group.createdAt)}</dd>
            </dl>
            <Panel title="Members" id="group-members">
              <GroupMembers group={group} canWrite={canWrite} onChange={reload} />
            </Panel>
            <Panel title="Roles" id="group-roles">
              <GroupRoles group={group} canWrite={canWrite} onSaved={reload} />
            </Panel>
            {canWrite ? (
              <>
                <Panel title="Edit group" id="edit-group">
                  <NamedForm
                    label="Edit group"
                    submitLabel="Save group"
                    initial={group}
                    onSubmit={async (values) => {
                      await patch<Group>(`/admin/groups/${seg(group.id)}`, values);
                      reload();
                      return "Saved.";
                    }}
                  />
                </Panel>
                <Panel title="Delete group" id="delete-group">
                  <p>Members lose the group's roles; profile fields bound to the group are deleted with their values.</p>
                  <ConfirmButton
                    label="Delete group"
                    title={`Delete the group ${group.name}?`}
                    confirmLabel="Delete"
                    onConfirm={async () => {
                      await del(`/admin/groups/${seg(group.id)}`);
                      carryNotice(LIST, `Group ${group.name} deleted.`);
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

function GroupRoles({ group, canWrite, onSaved }: { group: Group; canWrite: boolean; onSaved: () => void }) {
  const { state, reload } = useLoad((signal) => fetchAll<Role>("/admin/roles", signal), []);
  if (!canWrite || !hasScope("idp:roles:read")) {
    return group.roles.length ? (
      <ul className="scope-list">
        {group.roles.map((role) => (
          <li key={role.id}>{role.name}</li>
        ))}
      </ul>
    ) : (
      <p className="empty">No roles.</p>
    );
  }
  return (
    <Loaded state={state} reload={reload} label="Loading roles…">
      {(roles) => <RolesForm group={group} roles={roles} onSaved={onSaved} />}
    </Loaded>
  );
}

function RolesForm({ group, roles, onSaved }: { group: Group; roles: Role[]; onSaved: () => void }) {
  const [value, setValue] = useState<string[]>(() => group.roles.map((role) => role.id));
  const [saved, setSaved] = useState(false);
  const submission = useSubmit(async () => {
    setSaved(false);
    await put<Group>(`/admin/groups/${seg(group.id)}/roles`, { roles: value });
    setSaved(true);
    onSaved();
  });
  const name = (id: string | undefined): string | undefined => roles.find((role) => role.id === id)?.name;
  return (
    <Form submission={submission} label="Roles of the group">
      {saved ? <Notice>Roles saved.</Notice> : null}
      <CheckboxGroup
        legend="Roles of the group"
        options={roles.map((role) => ({
          value: role.id,
          label: role.name,
          ...(role.description ? { hint: role.description } : {}),
        }))}
        value={value}
        onChange={(next) => {
          setSaved(false);
          setValue(next);
        }}
        error={listErrors(submission, "roles", (index) => name(value[index]))}
      />
      <div>
        <SubmitButton busy={submission.busy}>Save roles</SubmitButton>
      </div>
    </Form>
  );
}
