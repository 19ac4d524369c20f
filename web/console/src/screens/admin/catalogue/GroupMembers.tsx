/**
 * The members of a group: the list (by email, paged), removal behind a confirmation, and
 * adding a person found by the beginning of their email (`GET /admin/users?email=`, which
 * needs `idp:users:read`).
 */
import { useState } from "react";
import { type Page, del, describeError, get, post } from "../../../api/client";
import { hasScope } from "../../../auth/session";
import { t } from "../../../i18n";
import { Link } from "../../../router";
import { ConfirmButton } from "../../../ui/dialog";
import { blankErrors, useForm } from "../../../ui/bind";
import { Form, SubmitButton, TextField } from "../../../ui/form";
import { useLoad } from "../../../ui/load";
import { PagedTable, useCursor } from "../../../ui/paged";
import { Notice, rowLabel } from "../../../ui/table";
import { type Group, type Member, seg } from "./common";

interface UserRow {
  id: string;
  email: string;
  displayName: string;
  disabled: boolean;
}

export function GroupMembers({ group, canWrite, onChange }: { group: Group; canWrite: boolean; onChange: () => void }) {
  const paging = useCursor();
  const { cursor } = paging;
  const [notice, setNotice] = useState<string | null>(null);
  const path = `/admin/groups/${seg(group.id)}/members`;
  const { state, reload } = useLoad((signal) => get<Page<Member>>(path, { cursor }, signal), [path, cursor]);
  const changed = (text: string): void => {
    setNotice(text);
    reload();
    onChange();
  };
  const canReadUsers = hasScope("idp:users:read");
  const remove = {
    header: t("admin-directory.members.actions"),
    cell: (member: Member) => (
      <ConfirmButton
        label={rowLabel(t("admin-directory.members.remove"), member.email)}
        title={t("admin-directory.members.removeQuestion", { email: member.email, group: group.name })}
        confirmLabel={t("admin-directory.members.remove")}
        onConfirm={async () => {
          await del(`${path}/${seg(member.id)}`);
          changed(t("admin-directory.members.removed", { email: member.email }));
        }}
      >
        <p>{t("admin-directory.members.removeConsequence")}</p>
      </ConfirmButton>
    ),
  };
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <PagedTable
        load={{ state, reload }}
        paging={paging}
        label={t("admin-directory.members.loading")}
        caption={t("admin-directory.members.caption", { group: group.name })}
        rowKey={(member) => member.id}
        empty={t("admin-directory.members.empty")}
        columns={[
          {
            header: t("admin-directory.members.email"),
            rowHeader: true,
            cell: (member) =>
              canReadUsers ? <Link to={`/console/admin/users/${seg(member.id)}`}>{member.email}</Link> : member.email,
          },
          { header: t("admin-directory.members.name"), cell: (member) => member.displayName || "—" },
          ...(canWrite ? [remove] : []),
        ]}
      />
      {canWrite && canReadUsers ? <AddMember path={path} onAdded={(email) => changed(t("admin-directory.members.added", { email }))} /> : null}
      {canWrite && !canReadUsers ? <p className="hint">{t("admin-directory.members.needsUsersRead")}</p> : null}
    </>
  );
}

/** "ada@example.com (Ada Lovelace) — disabled": one search result. */
function foundLabel(user: UserRow): string {
  return t("admin-directory.members.found", {
    email: user.email,
    name: user.displayName,
    hasName: user.displayName ? "yes" : "no",
    disabled: user.disabled ? "yes" : "no",
  });
}

function AddMember({ path, onAdded }: { path: string; onAdded: (email: string) => void }) {
  const [found, setFound] = useState<UserRow[] | null>(null);
  const [adding, setAdding] = useState<string | null>(null);
  const [addError, setAddError] = useState<string | null>(null);
  const form = useForm(
    { email: "" },
    async ({ email }) => {
      const page = await get<Page<UserRow>>("/admin/users", { email: email.trim(), limit: 10 });
      setFound(page.items);
    },
    (values) => blankErrors(values, { email: t("admin-directory.members.searchMissing") }),
  );
  const search = form.submission;
  const add = async (user: UserRow): Promise<void> => {
    setAdding(user.id);
    setAddError(null);
    try {
      await post(path, { members: [user.id] });
      setFound(null);
      form.reset();
      onAdded(user.email);
    } catch (error) {
      setAddError(describeError(error));
    } finally {
      setAdding(null);
    }
  };
  return (
    <div className="subform">
      <h3>{t("admin-directory.members.add")}</h3>
      <Form submission={search} label={t("admin-directory.members.find")} className="form search-form">
        <TextField
          label={t("admin-directory.members.emailBegins")}
          type="search"
          {...form.text("email")}
          autoComplete="off"
          spellCheck={false}
        />
        <div>
          <SubmitButton busy={search.busy} busyLabel={t("admin-directory.members.searching")}>
            {t("admin-directory.members.search")}
          </SubmitButton>
        </div>
      </Form>
      {addError ? (
        <p className="form-errors" role="alert">
          {addError}
        </p>
      ) : null}
      {found === null ? null : (
        <div role="status" className="search-results">
          {found.length === 0 ? (
            <p className="empty">{t("admin-directory.members.noMatch")}</p>
          ) : (
            <ul className="plain-list">
              {found.map((user) => (
                <li key={user.id}>
                  <span>{foundLabel(user)}</span>{" "}
                  <button
                    type="button"
                    className="button"
                    disabled={adding !== null}
                    onClick={() => void add(user)}
                  >
                    {rowLabel(t("admin-directory.members.addOne"), user.email)}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
