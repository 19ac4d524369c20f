/**
 * The members of a group: the list (by email, paged), removal behind a confirmation, and
 * adding a person found by the beginning of their email (`GET /admin/users?email=`, which
 * needs `idp:users:read`).
 */
import { useState } from "react";
import { type Page, del, describeError, get, post } from "../../../api/client";
import { hasScope } from "../../../auth/session";
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
    header: "Actions",
    cell: (member: Member) => (
      <ConfirmButton
        label={rowLabel("Remove", member.email)}
        title={`Remove ${member.email} from ${group.name}?`}
        confirmLabel="Remove"
        onConfirm={async () => {
          await del(`${path}/${seg(member.id)}`);
          changed(`${member.email} removed.`);
        }}
      >
        <p>They lose the scopes of the group's roles.</p>
      </ConfirmButton>
    ),
  };
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <PagedTable
        load={{ state, reload }}
        paging={paging}
        label="Loading members…"
        caption={`Members of ${group.name}`}
        rowKey={(member) => member.id}
        empty="No members yet."
        columns={[
          {
            header: "Email",
            rowHeader: true,
            cell: (member) =>
              canReadUsers ? <Link to={`/console/admin/users/${seg(member.id)}`}>{member.email}</Link> : member.email,
          },
          { header: "Name", cell: (member) => member.displayName || "—" },
          ...(canWrite ? [remove] : []),
        ]}
      />
      {canWrite && canReadUsers ? <AddMember path={path} onAdded={(email) => changed(`${email} added.`)} /> : null}
      {canWrite && !canReadUsers ? <p className="hint">Adding members needs the permission to read users.</p> : null}
    </>
  );
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
    (values) => blankErrors(values, { email: "Enter the beginning of an email address." }),
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
      <h3>Add a member</h3>
      <Form submission={search} label="Find a person" className="form search-form">
        <TextField
          label="Email begins with"
          type="search"
          {...form.text("email")}
          autoComplete="off"
          spellCheck={false}
        />
        <div>
          <SubmitButton busy={search.busy} busyLabel="Searching…">
            Search
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
            <p className="empty">Nobody's email begins with that.</p>
          ) : (
            <ul className="plain-list">
              {found.map((user) => (
                <li key={user.id}>
                  <span>
                    {user.email}
                    {user.displayName ? ` (${user.displayName})` : ""}
                    {user.disabled ? " — disabled" : ""}
                  </span>{" "}
                  <button
                    type="button"
                    className="button"
                    disabled={adding !== null}
                    onClick={() => void add(user)}
                  >
                    Add<span className="visually-hidden"> {user.email}</span>
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
