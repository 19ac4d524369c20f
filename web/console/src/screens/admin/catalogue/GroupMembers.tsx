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
import { Form, SubmitButton, TextField, useSubmit } from "../../../ui/form";
import { Loaded, useLoad } from "../../../ui/load";
import { DataTable, Notice, Pager } from "../../../ui/table";
import { type Group, type Member, seg } from "./common";

interface UserRow {
  id: string;
  email: string;
  displayName: string;
  disabled: boolean;
}

export function GroupMembers({ group, canWrite, onChange }: { group: Group; canWrite: boolean; onChange: () => void }) {
  const [cursor, setCursor] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const path = `/admin/groups/${seg(group.id)}/members`;
  const { state, reload } = useLoad((signal) => get<Page<Member>>(path, { cursor }, signal), [path, cursor]);
  const changed = (text: string): void => {
    setNotice(text);
    reload();
    onChange();
  };
  const canReadUsers = hasScope("idp:users:read");
  return (
    <>
      {notice ? <Notice>{notice}</Notice> : null}
      <Loaded state={state} reload={reload} label="Loading members…">
        {(page) => (
          <>
            <DataTable
              caption={`Members of ${group.name}`}
              rows={page.items}
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
                ...(canWrite
                  ? [
                      {
                        header: "Actions",
                        cell: (member: Member) => (
                          <ConfirmButton
                            label={
                              <>
                                Remove<span className="visually-hidden"> {member.email}</span>
                              </>
                            }
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
                      },
                    ]
                  : []),
              ]}
            />
            <Pager nextCursor={page.nextCursor} atStart={cursor === null} onNext={setCursor} onFirst={() => setCursor(null)} />
          </>
        )}
      </Loaded>
      {canWrite && canReadUsers ? <AddMember path={path} onAdded={(email) => changed(`${email} added.`)} /> : null}
      {canWrite && !canReadUsers ? <p className="hint">Adding members needs the permission to read users.</p> : null}
    </>
  );
}

function AddMember({ path, onAdded }: { path: string; onAdded: (email: string) => void }) {
  const [email, setEmail] = useState("");
  const [found, setFound] = useState<UserRow[] | null>(null);
  const [adding, setAdding] = useState<string | null>(null);
  const [addError, setAddError] = useState<string | null>(null);
  const search = useSubmit(
    async () => {
      const page = await get<Page<UserRow>>("/admin/users", { email: email.trim(), limit: 10 });
      setFound(page.items);
    },
    () => (email.trim() ? {} : { email: "Enter the beginning of an email address." }),
  );
  const add = async (user: UserRow): Promise<void> => {
    setAdding(user.id);
    setAddError(null);
    try {
      await post(path, { members: [user.id] });
      setFound(null);
      setEmail("");
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
          value={email}
          onChange={(event) => setEmail(event.currentTarget.value)}
          error={search.fieldError("email")}
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
