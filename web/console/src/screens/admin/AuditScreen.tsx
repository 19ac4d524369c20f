/**
 * The audit log (`GET /admin/audit`): newest first, filtered by action, actor, target and
 * time range, paged. The filters live in the URL, so a filtered view can be bookmarked or
 * shared. Back-channel logout deliveries carry a tag saying whether they arrived.
 */
import { useState } from "react";
import { type Page, get } from "../../api/client";
import { hasScope } from "../../auth/session";
import { t } from "../../i18n";
import { Link, setQuery, useLocation } from "../../router";
import { Screen } from "../../ui/Screen";
import { binders } from "../../ui/bind";
import { Form, SubmitRow, TextField, useSubmit } from "../../ui/form";
import { Loaded, useLoad } from "../../ui/load";
import { DataTable, RowsPerPage, UrlPager, formatTime, limitParam, pageSizeOf } from "../../ui/table";
import {
  type AuditRow,
  DELIVERY_ACTION,
  KNOWN_ACTIONS,
  compactDetail,
  deliveryOf,
  instantOf,
  screenOf,
} from "./audit/model";

const FILTERS = ["action", "actor", "target", "since", "until"] as const;
type Filter = (typeof FILTERS)[number];
type Filters = Record<Filter, string>;

function filtersOf(query: URLSearchParams): Filters {
  return {
    action: query.get("action") ?? "",
    actor: query.get("actor") ?? "",
    target: query.get("target") ?? "",
    since: query.get("since") ?? "",
    until: query.get("until") ?? "",
  };
}

export function AuditScreen(_props: { params: Record<string, string> }) {
  const { query } = useLocation();
  const search = query.toString();
  const filters = filtersOf(query);
  const cursor = query.get("cursor");
  const size = pageSizeOf(query);
  const { state, reload } = useLoad(
    (signal) =>
      get<Page<AuditRow>>(
        "/admin/audit",
        {
          action: filters.action,
          actor: filters.actor,
          target: filters.target,
          since: instantOf(filters.since),
          until: instantOf(filters.until),
          limit: size,
          cursor,
        },
        signal,
      ),
    [search],
  );
  const deliveriesOnly = filters.action === DELIVERY_ACTION;
  return (
    <Screen title={t("admin-ops.audit.title")} intro={t("admin-ops.audit.intro")}>
      <FilterForm key={search} filters={filters} size={size} />
      <div className="quick-filters" role="group" aria-label={t("admin-ops.audit.quick")}>
        <button
          type="button"
          className="button"
          aria-pressed={deliveriesOnly}
          onClick={() => setQuery({ action: deliveriesOnly ? null : DELIVERY_ACTION, cursor: null })}
        >
          {t("admin-ops.audit.quick.deliveries")}
        </button>
        <button
          type="button"
          className="button"
          onClick={() => setQuery({ action: null, actor: null, target: null, since: null, until: null, cursor: null })}
        >
          {t("admin-ops.audit.quick.all")}
        </button>
      </div>
      <Loaded state={state} reload={reload} label={t("admin-ops.audit.loading")}>
        {(page) => (
          <>
            <p className="hint" role="status">
              {page.items.length === 0
                ? ""
                : t("admin-ops.audit.showing", {
                    count: page.items.length,
                    later: cursor ? "yes" : "no",
                    older: page.nextCursor ? "yes" : "no",
                  })}
            </p>
            <AuditTable rows={page.items} />
            <UrlPager nextCursor={page.nextCursor} />
          </>
        )}
      </Loaded>
    </Screen>
  );
}

function FilterForm({ filters, size }: { filters: Filters; size: string }) {
  const [draft, setDraft] = useState(filters);
  const [rows, setRows] = useState(size);
  const submission = useSubmit(
    async () => {
      setQuery({ ...draft, limit: limitParam(rows), cursor: null });
    },
    () => {
      const errors: Record<string, string> = {};
      for (const name of ["since", "until"] as const) {
        if (draft[name] && instantOf(draft[name]) === null) errors[name] = t("admin-ops.audit.error.date");
      }
      const since = instantOf(draft.since);
      const until = instantOf(draft.until);
      if (since && until && since >= until) errors.until = t("admin-ops.audit.error.order");
      return errors;
    },
  );
  const { text: input } = binders(draft, setDraft, submission);
  return (
    <Form submission={submission} label={t("admin-ops.audit.filter")} className="form audit-filters">
      <TextField
        label={t("admin-ops.audit.action")}
        hint={t("admin-ops.audit.action.hint")}
        list="audit-actions"
        autoComplete="off"
        spellCheck={false}
        {...input("action")}
      />
      <datalist id="audit-actions">
        {KNOWN_ACTIONS.map((action) => (
          <option key={action} value={action} />
        ))}
      </datalist>
      <TextField
        label={t("admin-ops.audit.actor")}
        hint={t("admin-ops.audit.actor.hint")}
        autoComplete="off"
        spellCheck={false}
        {...input("actor")}
      />
      <TextField
        label={t("admin-ops.audit.target")}
        hint={t("admin-ops.audit.target.hint")}
        autoComplete="off"
        spellCheck={false}
        {...input("target")}
      />
      <TextField label={t("admin-ops.audit.from")} type="datetime-local" {...input("since")} />
      <TextField label={t("admin-ops.audit.until")} type="datetime-local" {...input("until")} />
      <RowsPerPage value={rows} onChange={setRows} />
      <SubmitRow submission={submission}>{t("admin-ops.audit.apply")}</SubmitRow>
    </Form>
  );
}

/**
 * An id in a cell: its first characters (the whole id in the tooltip and the link), a link
 * to the record's screen when there is one, and a button that filters the log by it.
 */
function Who({ type, id, filter }: { type: string | null; id: string | null; filter: "actor" | "target" }) {
  if (!id) return <span className="muted">—</span>;
  const path = screenOf(type, id, hasScope);
  const short = /^[0-9a-f-]{36}$/i.test(id) ? `${id.slice(0, 8)}…` : id;
  const text = (
    <code className="id" title={id}>
      {short}
    </code>
  );
  return (
    <span className="audit-id">
      {path ? <Link to={path}>{text}</Link> : text}{" "}
      <button type="button" className="button link" onClick={() => setQuery({ [filter]: id, cursor: null })}>
        {t("admin-ops.audit.filterBy")}
        <span className="visually-hidden"> {t("admin-ops.audit.filterBy.what", { by: filter, id })}</span>
      </button>
    </span>
  );
}

function AuditTable({ rows }: { rows: AuditRow[] }) {
  return (
    <DataTable
      caption={t("admin-ops.audit.caption")}
      rows={rows}
      rowKey={(row) => String(row.id)}
      empty={t("admin-ops.audit.empty")}
      columns={[
        {
          header: t("admin-ops.audit.col.time"),
          rowHeader: true,
          cell: (row) => <time dateTime={row.occurred_at}>{formatTime(row.occurred_at)}</time> },
        { header: t("admin-ops.audit.action"), cell: (row) => <code>{row.action}</code> },
        { header: t("admin-ops.audit.col.status"), cell: (row) => <Status row={row} /> },
        { header: t("admin-ops.audit.actor"), cell: (row) => <Who type="user" id={row.actor} filter="actor" /> },
        {
          header: t("admin-ops.audit.target"),
          cell: (row) =>
            row.target ? (
              <>
                {row.targetType ? <span className="muted">{row.targetType} </span> : null}
                <Who type={row.targetType} id={row.target} filter="target" />
              </>
            ) : (
              <span className="muted">—</span>
            ),
        },
        { header: t("admin-ops.audit.col.ip"), cell: (row) => row.ip ?? <span className="muted">—</span> },
        { header: t("admin-ops.audit.col.detail"), cell: (row) => <Detail row={row} /> },
      ]}
    />
  );
}

function Status({ row }: { row: AuditRow }) {
  const delivery = deliveryOf(row);
  if (delivery) {
    return <span className={delivery.delivered ? "tag ok" : "tag bad"}>{delivery.label}</span>;
  }
  const failed = row.status_code >= 400;
  return <span className={failed ? "tag bad" : "tag"}>{row.status_code}</span>;
}

function Detail({ row }: { row: AuditRow }) {
  const delivery = deliveryOf(row);
  const { text, cut } = compactDetail(row);
  return (
    <div className="audit-detail">
      {delivery?.uri ? (
        <p>
          {t("admin-ops.audit.to")} <code className="id">{delivery.uri}</code>
        </p>
      ) : null}
      {text ? <p>{text}</p> : null}
      {cut ? (
        <details>
          <summary>{t("admin-ops.audit.allDetails")}</summary>
          <pre className="claim-json">{JSON.stringify(row.detail, null, 2)}</pre>
        </details>
      ) : null}
    </div>
  );
}
