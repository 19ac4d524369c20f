import { Fragment, type ReactNode } from "react";
import { Link, setQuery, useLocation } from "../router";
import { intl, t } from "../i18n";
import { SelectField } from "./form";

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Marks the cell that names the row (a `<th scope="row">`). */
  rowHeader?: boolean;
}

/**
 * A data table with a caption. On a narrow screen it scrolls sideways inside a region that
 * can take focus, so it stays usable with the keyboard.
 */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  empty?: ReactNode;
}) {
  if (rows.length === 0) return <p className="empty">{empty ?? t("ui.table.empty")}</p>;
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) =>
                column.rowHeader ? (
                  <th key={column.header} scope="row">
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header}>{column.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Keyset paging: "Next page" while the list has a `nextCursor`, "First page" after. */
export function Pager({
  nextCursor,
  atStart,
  onNext,
  onFirst,
}: {
  nextCursor: string | null;
  atStart: boolean;
  onNext: (cursor: string) => void;
  onFirst: () => void;
}) {
  if (!nextCursor && atStart) return null;
  return (
    <nav className="pager" aria-label={t("ui.pager.label")}>
      {!atStart ? (
        <button type="button" className="button" onClick={onFirst}>
          {t("ui.pager.first")}
        </button>
      ) : null}
      {nextCursor ? (
        <button type="button" className="button" onClick={() => onNext(nextCursor)}>
          {t("ui.pager.next")}
        </button>
      ) : null}
    </nav>
  );
}

/** {@link Pager} for a list whose cursor is kept in the URL (`?cursor=`), so a page can be
 * reloaded or linked. */
export function UrlPager({ nextCursor }: { nextCursor: string | null }) {
  const { query } = useLocation();
  return (
    <Pager
      nextCursor={nextCursor}
      atStart={!query.get("cursor")}
      onNext={(next) => setQuery({ cursor: next })}
      onFirst={() => setQuery({ cursor: null })}
    />
  );
}

/** The page sizes a list screen offers. The size lives in the URL as `limit`; absent, the
 * default, which is also the API's. */
export const PAGE_SIZES = ["5", "10", "25", "50", "100", "200"];
export const DEFAULT_PAGE_SIZE = "50";

/** The page size the URL asks for (`?limit=`), or the default when it names none we offer. */
export function pageSizeOf(query: URLSearchParams): string {
  const size = query.get("limit") ?? DEFAULT_PAGE_SIZE;
  return PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE;
}

/** The `limit` to put in the URL for `size`: none for the default, so plain links stay plain. */
export function limitParam(size: string): string | null {
  return size === DEFAULT_PAGE_SIZE ? null : size;
}

/** "Rows per page", for a list's filter or search form. */
export function RowsPerPage({ value, onChange }: { value: string; onChange: (size: string) => void }) {
  return (
    <SelectField
      label={t("ui.rowsPerPage")}
      options={PAGE_SIZES.map((size) => ({ value: size, label: intl().formatNumber(Number(size)) }))}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}

/** A status line for a change that succeeded ("Saved."), read out by screen readers. */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** Dates from the API (ISO 8601 or epoch seconds) in the console's language. */
export function formatTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return t("common.none");
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : intl().formatDate(date, { dateStyle: "medium", timeStyle: "medium" });
}

/** The first column of a list: the record's name, linked to its detail screen. */
export function nameColumn<T>(header: string, to: (row: T) => string, name: (row: T) => ReactNode): Column<T> {
  return { header, rowHeader: true, cell: (row) => <Link to={to(row)}>{name(row)}</Link> };
}

/** A row's button label that names the row for screen readers ("Delete app:notes:read"). */
export function rowLabel(verb: string, item: string): ReactNode {
  return (
    <>
      {verb}
      <span className="visually-hidden"> {item}</span>
    </>
  );
}

/** One row of {@link Facts}: a term and its value; `false` or `null` leaves the row out. */
export type Fact = readonly [string, ReactNode] | false | null;

/** Facts about a record as a description list (`<dl class="facts">`). */
export function Facts({ rows, label }: { rows: Fact[]; label?: string }) {
  return (
    <dl className="facts" aria-label={label}>
      {rows.map((row) =>
        row ? (
          <Fragment key={row[0]}>
            <dt>{row[0]}</dt>
            <dd>{row[1]}</dd>
          </Fragment>
        ) : null,
      )}
    </dl>
  );
}
