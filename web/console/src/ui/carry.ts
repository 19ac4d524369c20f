/**
 * A notice carried from one screen to the next: after a creation the detail it opens says
 * "Client created.", after a deletion the list says what was deleted.
 */
import { useEffect, useState } from "react";
import { useLocation } from "../router";

let carried: { path: string; text: string } | null = null;

/** Leaves a notice for the screen at `path` (for example "Client created." on its detail). */
export function carryNotice(path: string, text: string): void {
  carried = { path, text };
}

/** The notice left for this screen, if any; read once. */
export function useCarriedNotice(): string | null {
  const { path } = useLocation();
  const [text] = useState(() => (carried && carried.path === path ? carried.text : null));
  useEffect(() => {
    if (carried && carried.path === path) carried = null;
  }, [path]);
  return text;
}
