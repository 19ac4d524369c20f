/**
 * A person's roles, direct scopes and effective scopes (each scope with why it is held).
 *
 * The roles and scopes given directly come from `GET /admin/users/{id}/roles` and
 * `.../scopes` (what the PUTs replace); `.../effective-scopes` explains the rest.
 */
import { type ReactNode, useState } from "react";
import { get, put } from "../../../api/client";
import { everyApiScope, everyItem } from "../../../api/pages";
import { hasScope, signedIn } from "../../../auth/session";
import { t } from "../../../i18n";
import { rich } from "../catalogue/rich";
import { Link } from "../../../router";
import { Panel } from "../../../ui/Screen";
import { CheckboxGroup, Form, SubmitRow, useSubmit } from "../../../ui/form";
import { type Load, Loaded, useLoad } from "../../../ui/load";
import { EffectiveScopesTable } from "../../../ui/EffectiveScopes";
import { Notice } from "../../../ui/table";
import {
  type ApiScope,
  type EffectiveScope,
  type Role,
  type ScopeSource,
  userPath,
} from "./model";

interface Choices {
  roles: Role[] | null;
  scopes: ApiScope[] | null;
}

const byValue = (scopes: ApiScope[]): ApiScope[] => scopes.sort((a, b) => a.value.localeCompare(b.value));

async function loadChoices(signal: AbortSignal): Promise<Choices> {
  const [roles, scopes] = await Promise.all([
    hasScope("idp:roles:read") ? everyItem<Role>("/admin/roles", signal) : Promise.resolve(null),
    hasScope("idp:apis:read") ? everyApiScope<ApiScope>(signal).then(byValue) : Promise.resolve(null),
  ]);
  return { roles, scopes };
}

function why(source: ScopeSource): ReactNode {
  switch (source.kind) {
    case "direct":
      return t("admin-directory.grants.direct");
    case "default":
      return t("admin-directory.grants.default");
    case "role":
      return rich("admin-directory.grants.role", {
        role: <Link to={`/console/admin/roles/${encodeURIComponent(source.roleId)}`}>{source.roleName}</Link>,
      });
    case "group":
      return rich("admin-directory.grants.group", {
        group: <Link to={`/console/admin/groups/${encodeURIComponent(source.groupId)}`}>{source.groupName}</Link>,
        role: <Link to={`/console/admin/roles/${encodeURIComponent(source.roleId)}`}>{source.roleName}</Link>,
      });
  }
}

function RolesForm({
  userId,
  roles,
  held,
  onSaved,
}: {
  userId: string;
  roles: Role[];
  held: string[];
  onSaved: () => void;
}) {
  const [value, setValue] = useState(held);
  const submission = useSubmit(async () => {
    await put(`${userPath(userId)}/roles`, { roles: value });
    onSaved();
  });
  return (
    <Form submission={submission} label={t("admin-directory.grants.roles")}>
      <CheckboxGroup
        legend={t("admin-directory.grants.rolesLegend")}
        hint={
          signedIn()?.identity.sub === userId
            ? t("admin-directory.grants.rolesOwn")
            : t("admin-directory.grants.rolesHint")
        }
        options={roles.map((role) => ({
          value: role.id,
          label: role.name,
          ...(role.description ? { hint: role.description } : {}),
        }))}
        value={value}
        onChange={setValue}
        error={value.map((_, i) => submission.fieldError(`roles[${i}]`)).find(Boolean)}
      />
      <SubmitRow submission={submission}>{t("admin-directory.grants.saveRoles")}</SubmitRow>
    </Form>
  );
}

function ScopesForm({
  userId,
  scopes,
  held,
  onSaved,
}: {
  userId: string;
  scopes: ApiScope[];
  held: string[];
  onSaved: () => void;
}) {
  const [value, setValue] = useState(held);
  const known = new Set(scopes.map((scope) => scope.value));
  // A held scope outside the list (should not happen) stays a choice, so saving keeps it.
  const options = [
    ...scopes.map((scope) => ({ value: scope.value, label: <code>{scope.value}</code>, hint: scope.description })),
    ...held.filter((v) => !known.has(v)).map((v) => ({ value: v, label: <code>{v}</code> })),
  ];
  const submission = useSubmit(async () => {
    await put(`${userPath(userId)}/scopes`, { scopes: value });
    onSaved();
  });
  return (
    <Form submission={submission} label={t("admin-directory.grants.scopes")}>
      <CheckboxGroup
        legend={t("admin-directory.grants.scopesLegend")}
        hint={t("admin-directory.grants.scopesHint")}
        options={options}
        value={value}
        onChange={setValue}
        error={value.map((_, i) => submission.fieldError(`scopes[${i}]`)).find(Boolean)}
      />
      <SubmitRow submission={submission}>{t("admin-directory.grants.saveScopes")}</SubmitRow>
    </Form>
  );
}

function Names({ values, empty }: { values: ReactNode[]; empty: string }) {
  if (values.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ul className="users-names">
      {values.map((value, i) => (
        <li key={i}>{value}</li>
      ))}
    </ul>
  );
}

/**
 * A panel of what is given directly: the form once the choices are loaded (when the
 * reader may write and may read the choices), else the read-only list.
 */
function GrantPanel({
  title,
  id,
  editable,
  choices,
  loading,
  readOnly,
  notice,
  form,
}: {
  title: string;
  id: string;
  editable: boolean;
  choices: { state: Load<Choices>; reload: () => void };
  loading: string;
  readOnly: ReactNode;
  notice: string | null;
  form: (choices: Choices) => ReactNode;
}) {
  return (
    <Panel title={title} id={id}>
      {editable ? (
        <Loaded state={choices.state} reload={choices.reload} label={loading}>
          {(loaded) => form(loaded) ?? readOnly}
        </Loaded>
      ) : (
        readOnly
      )}
      {notice ? <Notice>{notice}</Notice> : null}
    </Panel>
  );
}

export function Grants({ userId, canWrite }: { userId: string; canWrite: boolean }) {
  const effective = useLoad(
    async (signal) => {
      const [explained, roles, scopes] = await Promise.all([
        get<{ items: EffectiveScope[] }>(`${userPath(userId)}/effective-scopes`, undefined, signal),
        get<{ roles: { id: string; name: string }[] }>(`${userPath(userId)}/roles`, undefined, signal),
        get<{ scopes: string[] }>(`${userPath(userId)}/scopes`, undefined, signal),
      ]);
      return { items: explained.items, roles: roles.roles, direct: scopes.scopes };
    },
    [userId],
  );
  const choices = useLoad(loadChoices, []);
  const [notice, setNotice] = useState<{ panel: "roles" | "scopes"; text: string } | null>(null);
  const saved = (panel: "roles" | "scopes", text: string) => () => {
    setNotice({ panel, text });
    effective.reload();
  };
  return (
    <Loaded state={effective.state} reload={effective.reload} label={t("admin-directory.grants.loading")}>
      {({ items, roles: given, direct }) => {
        const roleIds = given.map((role) => role.id);
        const readOnlyRoles = (
          <Names
            values={given.map(({ id, name }) => (
              <Link to={`/console/admin/roles/${encodeURIComponent(id)}`}>{name}</Link>
            ))}
            empty={t("admin-directory.grants.noRoles")}
          />
        );
        const readOnlyScopes = <Names values={direct.map((v) => <code>{v}</code>)} empty={t("admin-directory.grants.noScopes")} />;
        const panels: {
          panel: "roles" | "scopes";
          title: string;
          id: string;
          loading: string;
          readOnly: ReactNode;
          form: (choices: Choices) => ReactNode;
        }[] = [
          {
            panel: "roles",
            title: t("admin-directory.grants.roles"),
            id: "user-roles",
            loading: t("admin-directory.grants.loadingRoles"),
            readOnly: readOnlyRoles,
            form: ({ roles }) =>
              roles ? (
                <RolesForm
                  key={roleIds.join(",")}
                  userId={userId}
                  roles={roles}
                  held={roleIds}
                  onSaved={saved("roles", t("admin-directory.grants.rolesSaved"))}
                />
              ) : null,
          },
          {
            panel: "scopes",
            title: t("admin-directory.grants.scopes"),
            id: "user-scopes",
            loading: t("admin-directory.grants.loadingScopes"),
            readOnly: readOnlyScopes,
            form: ({ scopes }) =>
              scopes ? (
                <ScopesForm
                  key={direct.join(",")}
                  userId={userId}
                  scopes={scopes}
                  held={direct}
                  onSaved={saved("scopes", t("admin-directory.grants.scopesSaved"))}
                />
              ) : null,
          },
        ];
        return (
          <>
            {panels.map((panel) => (
              <GrantPanel
                key={panel.panel}
                title={panel.title}
                id={panel.id}
                editable={canWrite}
                choices={choices}
                loading={panel.loading}
                readOnly={panel.readOnly}
                notice={notice?.panel === panel.panel ? notice.text : null}
                form={panel.form}
              />
            ))}
            <Panel title={t("admin-directory.grants.effective")} id="user-effective">
              <p className="hint">{t("admin-directory.grants.effectiveHint")}</p>
              <EffectiveScopesTable
                caption={t("admin-directory.grants.effective")}
                items={items}
                empty={t("admin-directory.grants.effectiveEmpty")}
                whyHeader={t("admin-directory.grants.why")}
                listClass="users-why"
                why={why}
              />
            </Panel>
          </>
        );
      }}
    </Loaded>
  );
}
