/**
 * Groups (`/admin/groups`): people who share roles. The detail holds the members (added by
 * searching users by email), the group's roles and the settings.
 */
import { useState } from "react";
import { put } from "../../api/client";
import { everyItem } from "../../api/pages";
import { hasScope } from "../../auth/session";
import { Panel } from "../../ui/Screen";
import { CheckboxGroup, Form, SubmitButton, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import { type Group, type Role, listErrors, seg } from "./catalogue/common";
import { GroupMembers } from "./catalogue/GroupMembers";
import { NamedListScreen, NamedScreen, namedKind } from "./catalogue/Named";

const GROUPS = namedKind("group");

export function GroupsScreen(_props: { params: Record<string, string> }) {
  return (
    <NamedListScreen<Group>
      kind={GROUPS}
      intro="People who share roles: every member holds the scopes of the group's roles."
      columns={[
        { header: "Members", cell: (group) => String(group.memberCount) },
        { header: "Roles", cell: (group) => group.roles.map((role) => role.name).join(", ") || "—" },
      ]}
      createdNotice="Group created. Add its members and roles below."
    />
  );
}

export function GroupScreen({ params }: { params: Record<string, string> }) {
  const canWrite = hasScope(GROUPS.writeScope);
  return (
    <NamedScreen<Group>
      kind={GROUPS}
      id={params.id ?? ""}
      facts={(group) => [
        ["Description", group.description || "—"],
        ["Members", group.memberCount],
        ["Created", formatTime(group.createdAt)],
      ]}
      deleteWarning="Members lose the group's roles; profile fields bound to the group are deleted with their values."
    >
      {(group, reload) => (
        <>
          <Panel title="Members" id="group-members">
            <GroupMembers group={group} canWrite={canWrite} onChange={reload} />
          </Panel>
          <Panel title="Roles" id="group-roles">
            <GroupRoles group={group} canWrite={canWrite} onSaved={reload} />
          </Panel>
        </>
      )}
    </NamedScreen>
  );
}

function GroupRoles({ group, canWrite, onSaved }: { group: Group; canWrite: boolean; onSaved: () => void }) {
  const { state, reload } = useLoad((signal) => everyItem<Role>("/admin/roles", signal), []);
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
