/** Whole lists read page by page, for the choices of checkbox groups and selects. */
import { type Page, get } from "./client";

/** Every item of a paged list (`{items, nextCursor}`), 200 at a time, at most 50 pages. */
export async function everyItem<T>(path: string, signal?: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let round = 0; round < 50; round += 1) {
    const page: Page<T> = await get<Page<T>>(path, { limit: 200, cursor }, signal);
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return items;
}

/** The scopes of every resource API (`idp` included; not the standard OIDC ones), API by API. */
export async function everyApiScope<S>(signal?: AbortSignal): Promise<S[]> {
  const apis = await everyItem<{ id: string }>("/admin/apis", signal);
  const lists = await Promise.all(
    apis.map((api) => everyItem<S>(`/admin/apis/${encodeURIComponent(api.id)}/scopes`, signal)),
  );
  return lists.flat();
}
