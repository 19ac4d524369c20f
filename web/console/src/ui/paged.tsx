/**
 * A paged list: where it is (its cursor, in the URL or in the component's state), and the
 * table of one page with "Next page" / "First page" under it, once the page has loaded.
 */
import { type ReactNode, useState } from "react";
import type { Page } from "../api/client";
import { setQuery, useLocation } from "../router";
import { type Load, Loaded } from "./load";
import { type Column, DataTable, Pager } from "./table";

/** The cursor of a list and the moves of its pager. */
export interface Paging {
  cursor: string | null;
  onNext: (cursor: string) => void;
  onFirst: () => void;
}

/**
 * The cursor kept in the URL (`?cursor=`), so a page can be reloaded or linked; `also`
 * names query parameters that a move drops (a one-time notice, for example).
 */
export function useUrlCursor(also: Record<string, null> = {}): Paging {
  const cursor = useLocation().query.get("cursor");
  return {
    cursor,
    onNext: (next) => setQuery({ ...also, cursor: next }),
    onFirst: () => setQuery({ ...also, cursor: null }),
  };
}

/** The cursor kept in the component (a list inside a panel of a detail screen). */
export function useCursor(): Paging {
  const [cursor, setCursor] = useState<string | null>(null);
  return { cursor, onNext: setCursor, onFirst: () => setCursor(null) };
}

/** A loaded page as a {@link DataTable} with its {@link Pager}, or loading / error. */
export function PagedTable<T>({
  load: { state, reload },
  paging,
  label,
  caption,
  columns,
  rowKey,
  empty,
}: {
  /** What `useLoad` answers for the page. */
  load: { state: Load<Page<T>>; reload: () => void };
  paging: Paging;
  label?: string;
  caption: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  empty: ReactNode;
}) {
  return (
    <Loaded state={state} reload={reload} {...(label ? { label } : {})}>
      {(page) => (
        <>
          <DataTable caption={caption} rows={page.items} rowKey={rowKey} empty={empty} columns={columns} />
          <Pager
            nextCursor={page.nextCursor}
            atStart={!paging.cursor}
            onNext={paging.onNext}
            onFirst={paging.onFirst}
          />
        </>
      )}
    </Loaded>
  );
}
