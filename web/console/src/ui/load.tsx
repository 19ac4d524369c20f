import { type DependencyList, type ReactNode, useCallback, useEffect, useState } from "react";
import { Redirecting, describeError } from "../api/client";
import { t } from "../i18n";

export type Load<T> =
  | { status: "loading" }
  | { status: "error"; error: unknown }
  | { status: "ready"; data: T };

/**
 * Loads data for a screen: `state` is loading, error or ready; `reload()` loads again
 * (after a write) without going back to the loading state, so the screen does not flicker.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
): { state: Load<T>; reload: () => void } {
  const [state, setState] = useState<Load<T>>({ status: "loading" });
  const [round, setRound] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    const controller = new AbortController();
    run(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: "ready", data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: "error", error });
      },
    );
    return () => controller.abort();
  }, [run, round]);
  useEffect(() => {
    setState({ status: "loading" });
  }, [run]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { state, reload };
}

/** Shows "Loading…", an error with "Try again", or the content. */
export function Loaded<T>({
  state,
  reload,
  label,
  children,
}: {
  state: Load<T>;
  reload?: () => void;
  label?: string;
  children: (data: T) => ReactNode;
}) {
  if (state.status === "loading") {
    return (
      <p className="loading" role="status" aria-live="polite">
        {label ?? t("common.loading")}
      </p>
    );
  }
  if (state.status === "error") {
    if (state.error instanceof Redirecting) {
      return (
        <p className="loading" role="status">
          {t("common.signingInAgain")}
        </p>
      );
    }
    return (
      <div className="error-state" role="alert">
        <p>{describeError(state.error)}</p>
        {reload ? (
          <button type="button" className="button" onClick={reload}>
            {t("common.tryAgain")}
          </button>
        ) : null}
      </div>
    );
  }
  return <>{children(state.data)}</>;
}
