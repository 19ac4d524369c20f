import { type ReactNode, useEffect, useId, useRef } from "react";
import { currentLocale, t } from "../i18n";

interface ScreenProps {
  title: string;
  /** A line under the heading saying what the screen is for. */
  intro?: ReactNode;
  /** Buttons or links beside the heading (for example "New client"). */
  actions?: ReactNode;
  children: ReactNode;
}

/** The first screen after a page load leaves focus at the top (the skip link comes first). */
let pageJustLoaded = true;
/** The language the last screen was shown in: a change of language alone moves no focus. */
let shownIn = currentLocale();

/**
 * One screen: `document.title` names it, and when the person moves to it within the page
 * its `<h1>` takes focus, so a screen reader announces the new screen.
 */
export function Screen({ title, intro, actions, children }: ScreenProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = t("shell.documentTitle", { title });
    const languageChanged = shownIn !== currentLocale();
    shownIn = currentLocale();
    if (pageJustLoaded) pageJustLoaded = false;
    else if (!languageChanged) heading.current?.focus();
  }, [title]);
  return (
    <section className="screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <h1 id="screen-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions ? <div className="screen-actions">{actions}</div> : null}
      </div>
      {intro ? <p className="intro">{intro}</p> : null}
      {children}
    </section>
  );
}

/** A titled part of a screen. */
export function Panel({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  // Not derived from the title: in Arabic every title would give the same id.
  const generated = useId();
  const headingId = `panel-${id ?? generated}`;
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}
