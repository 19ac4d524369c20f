/**
 * Groups (`/admin/groups`): people who share roles. The detail holds the members (added by
 * searching users by email), the group's roles and the settings.
 */
import { useState } from "react";
import { put } from "../../api/client";
import { everyItem } from "../../api/pages";
import { hasScope } from "../../auth/session";
import { intl, t } from "../../i18n";
import { Panel } from "../../ui/Screen";
import { CheckboxGroup, Form, SubmitButton, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { Notice, formatTime } from "../../ui/table";
import { type Group, type Role, listErrors, seg } from "./catalogue/common";
import { GroupMembers } from "./catalogue/GroupMembers";
import { NamedListScreen, NamedScreen, namedKind } from "./catalogue/Named";

const GROUPS = namedKind("group");

/** Names listed the way the reader's language separates them ("a, b, c"). */
const names = (values: string[]): string => intl().formatList(values, { type: "unit", style: "short" });

export function GroupsScreen(_props: { params: Record<string, string> }) {
  return (
    <NamedListScreen<Group>
      kind={GROUPS}
      intro={t("admin-directory.groups.intro")}
      columns={[
        { header: t("admin-directory.groups.members"), cell: (group) => intl().formatNumber(group.memberCount) },
        {
          header: t("admin-directory.groups.roles"),
          cell: (group) => names(group.roles.map((role) => role.name)) || "—",
        },
      ]}
      createdNotice={t("admin-directory.groups.createdNotice")}
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
        [t("admin-directory.groups.description"), group.description || "—"],
        [t("admin-directory.groups.members"), intl().formatNumber(group.memberCount)],
        [t("admin-directory.groups.createdAt"), formatTime(group.createdAt)],
      ]}
      deleteWarning={t("admin-directory.groups.deleteWarning")}
    >
      {(group, reload) => (
        <>
          <Panel title={t("admin-directory.groups.members")} id="group-members">
            <GroupMembers group={group} canWrite={canWrite} onChange={reload} />
          </Panel>
          <Panel title={t("admin-directory.groups.roles")} id="group-roles">
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
      <p className="empty">{t("admin-directory.groups.noRoles")}</p>
    );
  }
  return (
    <Loaded state={state} reload={reload} label={t("admin-directory.groups.loadingRoles")}>
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
    <Form submission={submission} label={t("admin-directory.groups.rolesLegend")}>
      {saved ? <Notice>{t("admin-directory.groups.rolesSaved")}</Notice> : null}
      <CheckboxGroup
        legend={t("admin-directory.groups.rolesLegend")}
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
        <SubmitButton busy={submission.busy}>{t("admin-directory.groups.saveRoles")}</SubmitButton>
      </div>
    </Form>
  );
}
